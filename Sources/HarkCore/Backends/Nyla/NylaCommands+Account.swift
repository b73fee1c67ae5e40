import FoundationEssentials
import Glibc

/// /login, /logout, /instances and /instance.
extension NylaBackend {
    func loginCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        guard !client.usesToken else {
            throw HarkError.usage("session \(session.name) uses a bearer token (auth); /login is for local accounts")
        }
        let user = context.arguments["USER"]
        let done: String
        if session["password"] != nil, user == nil || user == session["user"] {
            client.forgetLogin()
            done = try await ensureLogin(nil, notes: notes) ?? "logged in to \(client.host)"
        } else if context.interaction.isInteractive {
            done = try await interactiveLogin(user: user, interaction: context.interaction, notes: notes)
        } else {
            throw HarkError.usage("/login asks for the password in the shell; in scripts set password = env:VAR (or auth = bearer:SECRET)")
        }
        return [StyledLine(done, .success)]
    }

    func logoutCommand(_ context: CommandContext, notes: NylaNotes) async -> Document {
        guard !client.usesToken else {
            return [StyledLine("session \(session.name) uses a bearer token; there is no login to end", .dim)]
        }
        guard client.isLoggedIn else { return [StyledLine("not logged in to \(client.host)", .dim)] }
        await client.logout()
        return [StyledLine("logged out of \(client.host); its cookies are deleted", .success)]
    }

    func instancesCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        if let done = try await ensureLogin(context.interaction, notes: notes) { try await notes.add(done) }
        let mandates = try await mandates(notes: notes, refresh: true)
        let all = mandates.flatMap(\.instances)
        guard !all.isEmpty else { return [StyledLine("you have no instances on \(client.host) yet", .dim)] }
        let current = state.read { $0.instance?.id } ?? instanceSetting
        let width = all.map { TextWidth.of($0.id) }.max() ?? 0
        var lines: Document = []
        for mandate in mandates {
            lines.append(StyledLine([Span(mandate.name, .bold), Span(" (\(mandate.id))", .dim)]))
            for feature in mandate.features where !feature.instances.isEmpty {
                var heading = [Span("  " + feature.label)]
                if feature.label.lowercased() != feature.code.lowercased() { heading.append(Span(" · " + feature.code, .dim)) }
                lines.append(StyledLine(heading))
                for instance in feature.instances {
                    let marker = instance.id == current ? Span("  › ", .accent) : Span("    ")
                    let padding = String(repeating: " ", count: width - TextWidth.of(instance.id) + 2)
                    var spans = [marker, Span(instance.id, instance.chat == nil ? .dim : .accent), Span(padding), Span(instance.label)]
                    if instance.chat == nil { spans.append(Span(" (not a chat instance)", .dim)) }
                    lines.append(StyledLine(spans))
                }
            }
        }
        if current == nil { lines.append(StyledLine("/instance ID chooses the one this session talks to", .dim)) }
        return lines
    }

    func instanceCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        if let done = try await ensureLogin(context.interaction, notes: notes) { try await notes.add(done) }
        var reference = context.arguments["ID"]
        if reference == nil {
            let chat = try await mandates(notes: notes, refresh: true).flatMap(\.instances).filter { $0.chat != nil }
            guard context.interaction.isInteractive, !chat.isEmpty else { return try await currentInstance(notes: notes) }
            var prompt = ""
            for (index, instance) in chat.enumerated() {
                prompt += "  \(index + 1)  \(instance.label) (\(instance.featureCode) \(instance.id), \(instance.mandateName))\n"
            }
            guard let answer = await context.interaction.ask(prompt + "instance (number or id): ", secret: false),
                  !answer.trimmingSpaces.isEmpty else {
                return [StyledLine("no instance chosen", .dim)]
            }
            let trimmed = answer.trimmingSpaces
            if let number = Int(trimmed), chat.indices.contains(number - 1) { reference = chat[number - 1].id } else { reference = trimmed }
        }
        guard let reference else { return [] }
        var candidates = try await mandates(notes: notes).flatMap(\.instances)
        if Self.find(reference, in: candidates) == nil {
            candidates = try await mandates(notes: notes, refresh: true).flatMap(\.instances)
        }
        guard let chosen = Self.find(reference, in: candidates) else {
            throw HarkError.usage("no instance \"\(reference)\" on \(client.host); /instances lists them")
        }
        guard let feature = chosen.chat else {
            throw HarkError.usage("\(chosen.label) is \(chosen.featureCode.withIndefiniteArticle) instance; hark chats with workspace and chatbot instances")
        }
        try context.updateSettings(["instance": chosen.id, "mandate": chosen.mandateID, "feature": feature.rawValue])
        state.update { values in
            values.instance = chosen
            values.files = []
            values.folders = []
            values.edits = []
        }
        // The current thread belongs to the old instance's workflows.
        try context.history.setCurrentThread(nil)
        var lines: Document = [StyledLine("\(session.name) now talks to \(chosen.label) (\(feature.rawValue) \(chosen.id), "
                                              + "\(chosen.mandateName)); your next message starts a new thread", .success)]
        if feature == .workspace, let count = try? await pendingEdits(chosen, notes: notes).count, count > 0 {
            lines.append(StyledLine(count == 1 ? "1 pending edit; /edits shows it" : "\(count) pending edits; /edits shows them", .warning))
        }
        return lines
    }

    private func currentInstance(notes: NylaNotes) async throws -> Document {
        guard instanceSetting != nil || state.read({ $0.instance }) != nil else {
            return [StyledLine("no instance chosen; /instances lists them, /instance ID picks one", .dim)]
        }
        let (instance, feature) = try await self.instance(notes: notes)
        return [StyledLine("\(instance.label) (\(feature.rawValue) \(instance.id), \(instance.mandateName))")]
    }

    /// By id, then exact label, then a unique label prefix (case-insensitive).
    static func find(_ reference: String, in instances: [NylaInstance]) -> NylaInstance? {
        if let exact = instances.first(where: { $0.id == reference }) { return exact }
        let lowered = reference.lowercased()
        if let named = instances.first(where: { $0.label.lowercased() == lowered }) { return named }
        let prefixed = instances.filter { $0.label.lowercased().hasPrefix(lowered) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }
}
