import FoundationEssentials
import Glibc

/// `/prompts` and `/prompt`: the prompt library of Markdown files, for every session kind (a
/// kind with a library of its own, Nyla's, declares its own versions of both).
extension Workspace {
    func listPrompts(_ context: CommandContext) async throws -> CommandOutcome {
        let entries = PromptLibrary(paths: paths).entries()
        guard !entries.isEmpty else {
            return .output([StyledLine("no prompts yet; put Markdown files in \(paths.userPromptDirectory) "
                + "(docs/local.md shows the format)", .dim)])
        }
        // The variables go on a line of their own under the description: defaults can be long.
        var rows: [[Span]] = []
        for entry in entries {
            let template = entry.template
            rows.append([Span(template.name, .accent),
                         Span((template.description ?? "") + (entry.isUsers ? " (yours)" : ""))])
            guard !template.variables.isEmpty else { continue }
            let variables = template.variables.map { variable in
                variable.name + (variable.defaultValue.map { "=" + $0 } ?? "")
            }
            rows.append([Span(""), Span("takes " + variables.joined(separator: ", "), .dim)])
        }
        return .output(Table.render(rows) + [
            StyledLine("/prompt NAME [KEY=VALUE…] puts one in the input line; add --send to send it. "
                + "Your own go in \(paths.userPromptDirectory).", .dim),
        ])
    }

    func promptCommand(_ context: CommandContext) async throws -> CommandOutcome {
        let interaction = context.interaction
        guard let reference = context.arguments["NAME"], !reference.contains("=") else { throw context.badArguments() }
        var values: [String: String] = [:]
        for argument in context.arguments.list("KEY=VALUE") {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw HarkError.usage("expected KEY=VALUE after the prompt's name, got \"\(argument)\"")
            }
            values[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
        }
        let template = try PromptLibrary(paths: paths).find(reference).template
        for key in values.keys.sorted() where !template.variables.contains(where: { $0.name == key }) {
            let known = template.variables.map(\.name)
            throw HarkError.usage("prompt \(template.name) has no variable \(key); "
                + (known.isEmpty ? "it takes none" : "its variables are " + known.joined(separator: ", ")))
        }
        var (text, missing) = template.filled(values)
        if !missing.isEmpty, interaction.isInteractive {
            for name in missing {
                guard let answer = await interaction.ask("\(name): ", secret: false) else {
                    throw HarkError.usage("no value for \(name), so the prompt was not used")
                }
                values[name] = answer
            }
            (text, missing) = template.filled(values)
        }
        guard missing.isEmpty else {
            throw HarkError.usage("prompt \(template.name) needs "
                + missing.map { "\($0)=…" }.joined(separator: " ") + ": \(template.usage)")
        }
        return context.arguments.flag("--send") ? .reply(try send(text, to: context.session.name)) : .prefill(text)
    }
}
