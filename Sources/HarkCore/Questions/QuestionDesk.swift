import FoundationEssentials
import Glibc

/// Where an agent's question is answered: by the scripted answers when they give every
/// required field, else by the person at the terminal, else declined with one line saying so
/// (a pipe, `--json`, a reply gone to the background). Shared by every session of a run.
public final class QuestionDesk: Sendable {
    private let scripted = Locked(ScriptedAnswers())
    private let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// `--answer` and `--answers`: used for every question of this run that they fit.
    public func use(_ answers: ScriptedAnswers) {
        scripted.update { $0 = answers }
    }

    /// What the question comes to, and the lines to tell the user (why it was declined, the
    /// page to open).
    public func answer(_ question: Question, interaction: Interaction, today: FormDate) async -> (QuestionOutcome, [String]) {
        switch question.kind {
        case .url(let url, let host): return await consent(question, url: url, host: host, interaction: interaction)
        case .form: return await fill(question, interaction: interaction, today: today)
        }
    }

    private func fill(_ question: Question, interaction: Interaction, today: FormDate) async -> (QuestionOutcome, [String]) {
        var (answers, problems) = scripted.read { $0 }.fill(question, today: today)
        let asked = "\(question.asker) asked \"\(MessageLine.make(question.message, limit: 120))\""
        if !problems.isEmpty { return (.decline, problems.map { "\(asked): declined, \($0)" }) }
        if ScriptedAnswers.complete(question, &answers, today: today) {
            return (.accept(question.values(answers)), [])
        }
        if interaction.asksDuringReply, answers.isEmpty, let choices = OneKeyChoices(question) {
            return await choose(question, choices, interaction: interaction)
        }
        let conversation = QuestionConversation(question: question, answered: answers, today: today)
        if interaction.asksDuringReply, let outcome = await interaction.fill(conversation) { return (outcome, []) }
        let missing = question.fields.filter { answers[$0.field.id] == nil && $0.field.defaultAnswer == nil }.map(\.field.id)
        let flags = missing.map { "--answer \($0)=…" }.joined(separator: " ")
        let after = question.refusal.map { "; " + $0 } ?? ""
        return (.decline, ["\(asked) and nobody is here to answer: declined\(after); give the answers with \(flags) or --answers FILE.json"])
    }

    /// A question of one field with fixed choices (an approval) takes one key, as a tool
    /// call's approval does; Enter, Ctrl-C or Ctrl-D dismiss it.
    private func choose(_ question: Question, _ choices: OneKeyChoices, interaction: Interaction) async -> (QuestionOutcome, [String]) {
        let prompt = "\(question.asker) asks: \(MessageLine.make(question.message, limit: 200)) \(choices.prompt) "
        guard let key = await interaction.choose(prompt, options: choices.keys), let value = choices.value(for: key) else {
            return (.cancel, question.refusal.map { ["dismissed; " + $0] } ?? [])
        }
        return (.accept(.object([choices.field: value])), ["you chose " + choices.label(for: key)])
    }

    /// URL mode: the host shown and consent asked; the page opened in the desktop's browser,
    /// or printed for the user to open. hark never fetches it.
    private func consent(_ question: Question, url: String, host: String, interaction: Interaction) async -> (QuestionOutcome, [String]) {
        let what = "\(question.asker) asks you to open a page at \(host)"
        guard interaction.asksDuringReply else {
            return (.decline, ["\(what) (\(MessageLine.make(question.message, limit: 120))); nobody is here to agree: declined"])
        }
        let prompt = "\(what): \(MessageLine.make(question.message, limit: 200)). [o]pen / [d]ecline / [c]ancel "
        switch await interaction.choose(prompt, options: ["o", "d", "c"]) {
        case "o":
            // Told at once: the server may wait for the page's work before its call ends.
            interaction.tell(URLOpener.open(url, environment: environment) ? "opened the page at \(host) in your browser"
                             : "open this page to go on: " + MessageLine.make(url, limit: 2000))
            return (.accept(.object([:])), [])
        case "d": return (.decline, [])
        default: return (.cancel, [])
        }
    }
}

/// Opens a page in the desktop's browser with `xdg-open`, only when there is a desktop
/// (DISPLAY or WAYLAND_DISPLAY set); false when there is none, for the caller to print it.
enum URLOpener {
    static func open(_ url: String, environment: [String: String]) -> Bool {
        let desktop = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard desktop, isWebAddress(url) else { return false }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        guard let tool = path.split(separator: ":").map({ String($0) + "/xdg-open" }).first(where: { access($0, X_OK) == 0 }) else {
            return false
        }
        return (try? Subprocess.detach([tool, url], environment: environment)) != nil
    }

    /// Only http and https reach the browser: a `file:` or a scheme of some program's is not
    /// what a server may make the desktop open.
    static func isWebAddress(_ url: String) -> Bool {
        let lowered = url.lowercased()
        return (lowered.hasPrefix("https://") || lowered.hasPrefix("http://")) && !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
    }
}
