import FoundationEssentials
import Glibc

/// What `/info` and `/agent` show of an agent card.
enum A2AViews {
    /// `/info`: the few facts that say which agent this is and how hark reaches it.
    static func facts(_ card: A2ACard, credentials: Bool) -> [(String, String)] {
        var facts: [(String, String)] = [("agent", card.name + (card.version.map { " " + $0 } ?? ""))]
        if let description = card.description, !description.isEmpty { facts.append(("about", clip(description))) }
        facts.append(("endpoint", endpointLine(card)))
        facts.append(("streaming", card.streaming ? "yes" : "no (sent, then polled)"))
        if !card.skills.isEmpty { facts.append(("skills", card.skills.map(\.name).joined(separator: ", "))) }
        if let auth = authLine(card) { facts.append(("auth", auth + (credentials ? "" : "; the session sets none"))) }
        return facts
    }

    /// `/agent`: the whole card as a user reads it.
    static func document(_ card: A2ACard, credentials: Bool) -> Document {
        var lines: Document = []
        var title = [Span(card.name, .bold)]
        if let version = card.version { title.append(Span(" " + version, .dim)) }
        if let provider = card.provider { title.append(Span(" · by " + provider, .dim)) }
        lines.append(StyledLine(title))
        if let description = card.description, !description.isEmpty { lines.append(StyledLine(description)) }
        var rows: [[Span]] = [[Span("endpoint", .dim), Span(endpointLine(card))]]
        let chosen = card.jsonRPCInterface
        for interface in card.interfaces where interface != chosen {
            rows.append([Span("also", .dim), Span(interfaceLine(interface))])
        }
        rows.append([Span("capabilities", .dim), Span("streaming \(yesNo(card.streaming)) · push notifications "
            + "\(yesNo(card.pushNotifications)) · extended card \(yesNo(card.extendedCard))")])
        if !card.inputModes.isEmpty || !card.outputModes.isEmpty {
            rows.append([Span("modes", .dim), Span("in " + list(card.inputModes) + " · out " + list(card.outputModes))])
        }
        rows.append([Span("auth", .dim), Span((authLine(card) ?? "none") + (credentials || authLine(card) == nil ? "" : "; the session sets none"))])
        if let documentation = card.documentationURL { rows.append([Span("docs", .dim), Span(documentation)]) }
        lines += Table.render(rows)
        if !card.skills.isEmpty {
            lines.append(StyledLine("skills", .heading))
            for skill in card.skills {
                var line = [Span("  " + skill.name, .bold)]
                if skill.id != skill.name, !skill.id.isEmpty { line.append(Span(" (\(skill.id))", .dim)) }
                if let description = skill.description, !description.isEmpty { line.append(Span(" — " + description)) }
                lines.append(StyledLine(line))
                for example in skill.examples.prefix(3) { lines.append(StyledLine("    e.g. " + example, .dim)) }
            }
        }
        return lines
    }

    static func endpointLine(_ card: A2ACard) -> String {
        do {
            let (interface, _) = try card.endpoint()
            return interfaceLine(interface)
        } catch {
            return error.userMessage
        }
    }

    static func interfaceLine(_ interface: A2ACard.Interface) -> String {
        let binding = interface.binding.uppercased() == "JSONRPC" ? "JSON-RPC" : interface.binding
        return interface.url + " · " + binding + (interface.version.map { " · A2A " + $0 } ?? "")
            + (interface.tenant.map { " · tenant " + $0 } ?? "")
    }

    /// The card's security requirements, alternatives joined by "or".
    static func authLine(_ card: A2ACard) -> String? {
        let requirements = card.requirements.filter { !$0.isEmpty }
        guard !requirements.isEmpty else { return nil }
        return requirements.map { requirement in
            requirement.map { A2AAuth.describe($0, card.schemes[$0]) }.joined(separator: " and ")
        }.joined(separator: " or ")
    }

    static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    static func list(_ items: [String]) -> String { items.isEmpty ? "any" : items.joined(separator: ", ") }

    static func clip(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }
}
