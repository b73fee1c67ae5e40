import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `/prompts`, `/prompt NAME key=value…` and prompt files as system prompts.
@Suite struct PromptLibraryTests {
    @Test func frontMatterNamesDescribesAndDeclaresVariables() {
        let template = PromptTemplate.parse("""
            ---
            name: greet
            description: "Say hello"
            variables: [who, tone=warm]
            ---
            Greet {{who}} in a {{ tone }} way, signed {{me}}.
            """, fallbackName: "file")
        #expect(template.name == "greet")
        #expect(template.description == "Say hello")
        #expect(template.variables.map(\.name) == ["who", "tone", "me"], "undeclared placeholders are variables too")
        #expect(template.requiredVariables == ["who", "me"])
        let filled = template.filled(["who": "Ann", "me": "Bo"])
        #expect(filled.text == "Greet Ann in a warm way, signed Bo.")
        #expect(filled.missing.isEmpty)
        #expect(template.filled([:]).missing == ["who", "me"])
        #expect(template.usage == "/prompt greet who=… [tone=warm] me=…")
        let plain = PromptTemplate.parse("\nJust text.\n", fallbackName: "plain")
        #expect(plain.name == "plain")
        #expect(plain.body == "Just text.")
        #expect(plain.variables.isEmpty)
        #expect(PromptTemplate.parse("---\nnot closed\n", fallbackName: "x").body == "---\nnot closed")
    }

    static func home(_ config: String = "") -> TestHome {
        TestHome(config: config, sharedPrompts: [TestHome.shippedPrompts])
    }

    @Test func theShippedPromptsAreListedAndOneOfYoursReplacesOne() async throws {
        let home = Self.home()
        home.writePrompt("concise.md", "---\ndescription: my own concise\n---\nBe terse.\n")
        let transcript = Transcript(try home.workspace())
        let output = await transcript.type("/prompts")
        #expect(output == """
            > /prompts
            code-review     Review a change for bugs, risks and readability, most important first
                            takes language=the code's language, focus=correctness
            commit-message  Write a git commit message for a diff; also works as a session's system prompt
            concise         my own concise (yours)
            explain         Explain a concept, a piece of code or an error message, step by step
                            takes level=an experienced programmer new to this topic
            rewrite         Rewrite a text to be clearer and shorter, in the same voice
                            takes text
            summarize       Summarize a text in a few bullet points for a given reader
                            takes points=5, audience=a busy colleague
            translate       Translate a text, keeping its tone, formatting and technical terms
                            takes language=English, text
            /prompt NAME [KEY=VALUE…] puts one in the input line; add --send to send it. Your own go in \(home.paths.userPromptDirectory).

            """)
        #expect(await transcript.type("/prompt conc") == "> /prompt conc\n[input line: Be terse.]\n")
    }

    @Test func variablesAreFilledFromArgumentsDefaultsOrQuestions() async throws {
        let workspace = try Self.home().workspace()
        let transcript = Transcript(workspace)
        await transcript.type("/prompt translate language=German \"text=Good morning, Ann\"")
        // Enter sends the draft with the input line: in this local session, a note.
        await transcript.type("")
        let note = try #require(try workspace.store.lastMessage(session: "local", role: .user))
        #expect(note.text.hasPrefix("Translate the text below into German."))
        #expect(note.text.hasSuffix("translation only.\n\nGood morning, Ann"))
        await transcript.type("/prompt translate")
        await transcript.type("/prompt translate tone=dry text=x")
        await transcript.type("/prompt nope")
        await transcript.type("/prompt")
        #expect(transcript.text == """
            > /prompt translate language=German "text=Good morning, Ann"
            … Translate the text below into German. Keep the tone (formal or casual), the
            … formatting (lists, Markdown, line breaks), names, code, numbers and units exactly as they
            … are. Where a phrase has no good equivalent, choose the natural wording a native speaker would
            … use rather than a literal one. Reply with the translation only.
            …\u{20}
            [input line: Good morning, Ann]
            > Good morning, Ann
            · noted
            > /prompt translate
            hark: prompt translate needs text=…: /prompt translate [language=English] text=…
            > /prompt translate tone=dry text=x
            hark: prompt translate has no variable tone; its variables are language, text
            > /prompt nope
            hark: no prompt named "nope"; /prompts lists them
            > /prompt
            hark: usage: /prompt NAME [KEY=VALUE…] [--send]; /prompts lists the names

            """)
        // At the keyboard, a missing value is asked for.
        let interaction = ScriptedInteraction(["Bonjour"])
        workspace.interaction = interaction
        let asked = await transcript.type("/prompt translate language=English")
        #expect(asked.hasSuffix("translation only.\n… \n[input line: Bonjour]\n"))
        // Ctrl-C drops the draft and the input line.
        await transcript.press(.ctrlC)
        #expect(transcript.text.hasSuffix("[input line: Bonjour]\n^C\n"))
        #expect(try workspace.store.lastMessage(session: "local", role: .user)?.text == note.text)
        #expect(interaction.questions.map(\.prompt) == ["text: "])
    }

    @Test func sendSendsTheFilledPromptToTheCurrentSession() async throws {
        let server = try TestOpenAIServer { body in [.text("got: " + (body["messages"]?.array?.last?["content"]?.string ?? "")), .done] }
        let home = Self.home("[hark]\ndefault = llama\n[session llama]\nkind = openai\nurl = \(server.baseURL)\n")
        home.writePrompt("haiku.md", "---\nvariables: topic\n---\nA haiku about {{topic}}.")
        let transcript = Transcript(try home.workspace())
        #expect(await transcript.type("/prompt haiku topic=tea --send") == "> /prompt haiku topic=tea --send\ngot: A haiku about tea.\n")
        #expect(try transcript.workspace.store.lastMessage(session: "llama", role: .user)?.text == "A haiku about tea.")
    }

    @Test func aPromptFileAsASystemPromptLosesItsFrontMatterAndKeepsItsDefaults() async throws {
        let server = try TestOpenAIServer(script: TestOpenAIServer.streaming(["ok"]))
        let home = Self.home("[session llama]\nkind = openai\nurl = \(server.baseURL)\nsystem = @prompts/summarize.md\n")
        _ = await Transcript(try home.workspace()).type("@llama hello")
        let system = try #require(server.bodies.first?["messages"]?[0])
        #expect(system["role"]?.string == "system")
        let text = try #require(system["content"]?.string)
        #expect(text.hasPrefix("Summarize the text below for a busy colleague in at most 5 bullet points."))
        #expect(!text.contains("---") && !text.contains("{{"))
    }

    @Test func tabCompletesPromptNames() throws {
        let workspace = try Self.home().workspace()
        #expect(Completion.complete(line: "/prompt co", workspace: workspace).candidates
            == ["code-review", "commit-message", "concise"])
        #expect(Completion.complete(line: "/form tr", workspace: workspace).candidates == ["travel-expense"])
        #expect(Completion.complete(line: "/form re", workspace: workspace).candidates == ["resume"])
    }
}
