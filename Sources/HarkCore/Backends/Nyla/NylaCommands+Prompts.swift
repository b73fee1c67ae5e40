/// /prompts and /prompt: the gateway's prompt library, a prompt put in the input line.
extension NylaBackend {
    func prompts(notes: NylaNotes) async throws -> [NylaPrompt] {
        let prompts = try await client.allItems(NylaWire.prompts, key: "prompts", notes: notes).compactMap(NylaWire.prompt)
        let found = prompts
        state.update { $0.prompts = found }
        return prompts
    }

    func promptsCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        if let done = try await ensureLogin(context.interaction, notes: notes) { try await notes.add(done) }
        let prompts = try await prompts(notes: notes)
        guard !prompts.isEmpty else { return [StyledLine("the prompt library on \(client.host) is empty", .dim)] }
        let rows: [[Span]] = prompts.map { prompt in
            let about = prompt.description ?? prompt.content.split(separator: "\n").first.map(String.init) ?? ""
            return [Span(prompt.name, .accent), Span(about.count > 60 ? String(about.prefix(59)) + "…" : about, .dim)]
        }
        return Table.render(rows) + [StyledLine("/prompt NAME puts one in the input line", .dim)]
    }

    /// `{{key}}` and `{key}` placeholders are filled from KEY=VALUE arguments.
    func promptCommand(_ context: CommandContext) async throws -> CommandOutcome {
        let notes = NylaNotes(forward: { context.notes.add($0) })
        let reference = context.arguments["NAME"] ?? ""
        var known = state.read { $0.prompts }
        if Self.findPrompt(reference, in: known) == nil {
            if let done = try await ensureLogin(context.interaction, notes: notes) { try await notes.add(done) }
            known = try await prompts(notes: notes)
        }
        guard let prompt = Self.findPrompt(reference, in: known) else {
            throw HarkError.usage("no prompt \"\(reference)\" in the library; /prompts lists them")
        }
        var text = prompt.content
        for assignment in context.arguments.list("KEY=VALUE") {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw HarkError.usage("expected KEY=VALUE after the prompt's name, got \"\(assignment)\"")
            }
            let key = String(assignment[..<equals])
            let value = String(assignment[assignment.index(after: equals)...])
            text = text.replacingOccurrences(of: "{{\(key)}}", with: value).replacingOccurrences(of: "{\(key)}", with: value)
        }
        // The input line holds one line: keep the words of a multi-line prompt apart.
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return .prefill(line)
    }

    /// By exact name (case-insensitive), id, or a unique name prefix.
    static func findPrompt(_ reference: String, in prompts: [NylaPrompt]) -> NylaPrompt? {
        let lowered = reference.lowercased()
        if let exact = prompts.first(where: { $0.name.lowercased() == lowered || $0.id == reference }) { return exact }
        let prefixed = prompts.filter { $0.name.lowercased().hasPrefix(lowered) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }
}
