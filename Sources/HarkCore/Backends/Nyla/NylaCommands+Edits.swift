/// /edits, /accept and /reject: the agent's proposed file edits, shown as coloured unified
/// diffs (styled spans, so a pipe gets plain text), applied or discarded one by one or all.
extension NylaBackend {
    func pendingEdits(_ instance: NylaInstance, notes: NylaNotes?) async throws -> [NylaPendingEdit] {
        let edits = try await client.allItems(NylaWire.pendingEdits(instance), key: "edits", instance: instance, notes: notes)
            .compactMap(NylaWire.pendingEdit)
        state.update { values in
            values.edits = edits
            values.editCounts[instance.id] = edits.count
        }
        return edits
    }

    func editsCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        let instance = try await workspaceInstance(context, notes: notes, for: "pending edits")
        var edits = try await pendingEdits(instance, notes: notes)
        guard !edits.isEmpty else { return [StyledLine("no pending edits in \(instance.label)", .dim)] }
        if let id = context.arguments["ID"] {
            edits = edits.filter { $0.id == id }
            guard !edits.isEmpty else { throw HarkError.usage("no pending edit \(id); /edits lists them") }
        }
        var lines: Document = []
        for edit in edits {
            if !lines.isEmpty { lines.append(StyledLine("")) }
            var title = [Span(edit.id, .accent), Span("  " + edit.fileName, .bold)]
            if let description = edit.description { title.append(Span(" · " + description, .dim)) }
            lines.append(StyledLine(title))
            lines += Self.diff(edit)
        }
        lines.append(StyledLine(""))
        lines.append(StyledLine("/accept ID|all applies, /reject ID|all discards", .dim))
        return lines
    }

    static func diff(_ edit: NylaPendingEdit) -> Document {
        if let diff = edit.diff, edit.oldContent == nil || edit.newContent == nil {
            return UnifiedDiff.split(diff).map { line in
                if line.hasPrefix("+++") || line.hasPrefix("---") || line.hasPrefix("@@") { return StyledLine(String(line), .dim) }
                if line.hasPrefix("+") { return StyledLine(String(line), .success) }
                if line.hasPrefix("-") { return StyledLine(String(line), .error) }
                return StyledLine(String(line))
            }
        }
        let changes = UnifiedDiff.lines(old: edit.oldContent ?? "", new: edit.newContent ?? "")
        guard !changes.isEmpty else { return [StyledLine("(no change in the text)", .dim)] }
        let old = edit.oldContent?.isEmpty == false ? "a/" + edit.fileName : "/dev/null"
        var lines: Document = [StyledLine("--- " + old, .dim), StyledLine("+++ b/" + edit.fileName, .dim)]
        for change in changes {
            switch change {
            case .hunk(let text): lines.append(StyledLine(text, .dim))
            case .context(let text): lines.append(StyledLine(" " + text))
            case .removed(let text): lines.append(StyledLine("-" + text, .error))
            case .added(let text): lines.append(StyledLine("+" + text, .success))
            }
        }
        return lines
    }

    func acceptCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        try await decide(context, accept: true, notes: notes)
    }

    func rejectCommand(_ context: CommandContext, notes: NylaNotes) async throws -> Document {
        try await decide(context, accept: false, notes: notes)
    }

    func decide(_ context: CommandContext, accept: Bool, notes: NylaNotes) async throws -> Document {
        let target = context.arguments["ID|all"] ?? ""
        let instance = try await workspaceInstance(context, notes: notes, for: "pending edits")
        let known = state.read { $0.edits }
        let done = accept ? "accepted" : "rejected"
        var lines: Document
        if target == "all" {
            let before = try await pendingEdits(instance, notes: notes)
            guard !before.isEmpty else { return [StyledLine("no pending edits in \(instance.label)", .dim)] }
            let answer = try await client.json("POST", NylaWire.decide(instance, edit: nil, accept: accept), instance: instance,
                                               notes: notes)
            let count = answer[done]?.int ?? answer["count"]?.int ?? before.count
            lines = [StyledLine("\(done) \(count == 1 ? "the pending edit" : "all \(count) pending edits")", .success)]
        } else {
            _ = try await client.json("POST", NylaWire.decide(instance, edit: target, accept: accept), instance: instance,
                                      notes: notes)
            let name = known.first { $0.id == target }.map { " (\($0.fileName))" } ?? ""
            lines = [StyledLine("\(done) \(target)\(name)", .success)]
        }
        let left = try await pendingEdits(instance, notes: notes).count
        if left > 0 { lines.append(StyledLine("\(left) pending edit\(left == 1 ? "" : "s") left", .dim)) }
        return lines
    }
}
