import FoundationEssentials
import Glibc

/// Contacts and their notes, activities, tasks and gifts as plain aligned text: the reply
/// that is shown, stored in the history (so `/search` finds it later) and printed in a pipe.
/// No colours and no Markdown markers, so it reads the same everywhere.
enum MonicaFormatting {
    // MARK: Listings

    /// One line per contact: id, name, nickname, company / job, tags.
    /// The company / job column only when some row has one: a name search's rows never do
    /// (Monica selects few columns for it), and opening each card to fill them would count a
    /// view of every contact found.
    static func contactTable(_ contacts: [MonicaContact]) -> [String] {
        let work = contacts.map { [$0.company, $0.job].compactMap { $0 }.joined(separator: " · ") }
        let showsWork = work.contains { !$0.isEmpty }
        var rows: [[String]] = [["id", "name", "nickname"] + (showsWork ? ["company / job"] : []) + ["tags"]]
        for (contact, work) in zip(contacts, work) {
            rows.append([String(contact.id), clip(contact.name, 28), clip(contact.nickname ?? "", 16)]
                + (showsWork ? [clip(work, 32)] : []) + [clip(contact.tags.map(\.name).joined(separator: ", "), 32)])
        }
        return align(rows)
    }

    static func tagTable(_ tags: [MonicaTag]) -> [String] {
        align([["id", "name"]] + tags.map { [String($0.id), $0.name] })
    }

    static func notes(_ notes: [MonicaNote]) -> [String] {
        notes.flatMap { note in
            entry(lead: (note.createdAt ?? "") + (note.isFavorite ? " ★" : "  "), body: note.body.isEmpty ? "(empty)" : note.body)
        }
    }

    /// Attendees other than the contact whose activities these are (`contactID`) are named.
    static func activities(_ activities: [MonicaActivity], contactID: Int) -> [String] {
        activities.flatMap { activity in
            var line = activity.summary.isEmpty ? "(no summary)" : activity.summary
            if let type = activity.type { line += " (\(type))" }
            let others = activity.attendees.filter { $0.id != contactID }.map(\.name)
            if !others.isEmpty { line += " · with " + others.joined(separator: ", ") }
            return entry(lead: activity.happenedAt ?? "", body: line + (activity.description.map { "\n" + $0 } ?? ""))
        }
    }

    static func tasks(_ tasks: [MonicaTask]) -> [String] {
        tasks.flatMap { task in
            var line = task.title.isEmpty ? "(untitled)" : task.title
            if task.completed, let done = task.completedAt { line += " · done " + done }
            else if let added = task.createdAt { line += " · added " + added }
            return entry(lead: task.completed ? "[x]" : "[ ]", body: line + (task.description.map { "\n" + $0 } ?? ""))
        }
    }

    static func gifts(_ gifts: [MonicaGift]) -> [String] {
        gifts.flatMap { gift in
            var line = gift.name.isEmpty ? "(unnamed)" : gift.name
            if let amount = gift.amount { line += " · " + amount }
            if let recipient = gift.recipient { line += " · for " + recipient }
            if let date = gift.date { line += " · " + date }
            let extra = [gift.comment, gift.url].compactMap { $0 }.joined(separator: "\n")
            return entry(lead: String((gift.status + String(repeating: " ", count: 8)).prefix(8)),
                         body: line + (extra.isEmpty ? "" : "\n" + extra))
        }
    }

    /// "15 of 40 contacts · /more for the next page", or "3 contacts" when one page holds all.
    static func footer(page: Int, shown: Int, total: Int, hasNext: Bool, noun: String) -> String {
        if page == 1 && !hasNext && shown == total { return "\(total) \(plural(noun, total))" }
        return "\(shown) of \(total) \(plural(noun, total))" + (hasNext ? " · /more for the next page" : "")
    }

    // MARK: The card

    /// Everything about one contact: names, contact fields, addresses, tags, dates, counts and
    /// the latest notes. `today` (YYYY-MM-DD) gives ages.
    static func card(_ contact: MonicaContact, notes: [MonicaNote], today: String) -> String {
        var title = contact.name
        if let nickname = contact.nickname { title += " \"\(nickname)\"" }
        title += " · #\(contact.id)"
        if contact.isStarred { title += " ★" }
        var lines = [title]
        let work = [contact.job, contact.company].compactMap { $0 }.joined(separator: " at ")
        if !work.isEmpty { lines.append(work) }
        if let description = contact.description {
            lines += description.split(whereSeparator: \.isNewline).map { sanitize(String($0)) }
        }

        var rows: [[String]] = []
        for field in contact.fields { rows.append([field.label, field.content]) }
        for address in contact.addresses {
            rows.append(["address", (address.name.map { $0 + ": " } ?? "") + address.lines.joined(separator: ", ")])
        }
        if !contact.tags.isEmpty { rows.append(["tags", contact.tags.map(\.name).joined(separator: ", ")]) }
        if let birthdate = contact.birthdate {
            rows.append(["birthday", describe(birthdate, today: contact.isDead ? nil : today)])
        }
        if contact.isDead { rows.append(["died", contact.deceasedDate.map { describe($0, today: nil) } ?? "yes"]) }
        let met = [contact.firstMetDate.map { describe($0, today: nil) }, contact.howYouMet].compactMap { $0 }
        if !met.isEmpty { rows.append(["met", met.joined(separator: " · ")]) }
        if let called = contact.lastCalled { rows.append(["last call", called]) }
        if let activity = contact.lastActivity { rows.append(["last seen", activity]) }
        let stamps = [contact.createdAt.map { "added " + $0 }, contact.updatedAt.map { "updated " + $0 }].compactMap { $0 }
        if !stamps.isEmpty { rows.append(["in monica", stamps.joined(separator: " · ")]) }
        let counted = countedThings.compactMap { key, noun -> String? in
            guard let count = contact.counts[key], count > 0 else { return nil }
            return "\(count) \(plural(noun, count))"
        }
        if !counted.isEmpty { rows.append(["has", counted.joined(separator: " · ")]) }
        if !rows.isEmpty { lines += [""] + align(rows) }

        if !notes.isEmpty {
            let total = contact.counts["notes"] ?? notes.count
            lines += ["", total > notes.count ? "latest notes (\(notes.count) of \(total); /notes \(contact.id) lists all)" : "notes"]
            lines += self.notes(notes)
        }
        return lines.joined(separator: "\n")
    }

    /// `statistics` keys worth a mention on the card, with their singular noun, in order.
    static let countedThings: [(key: String, noun: String)] = [
        ("notes", "note"), ("activities", "activity"), ("tasks", "task"), ("gifts", "gift"), ("reminders", "reminder"),
        ("calls", "call"), ("debts", "debt"),
    ]

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    /// "1985-03-14 (40)", "March 14 (year unknown)", "about 1985 (age known only)".
    static func describe(_ date: MonicaDate, today: String?) -> String {
        let parts = date.day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return date.day }
        if date.isYearUnknown { return "\(months[parts[1] - 1]) \(parts[2]) (year unknown)" }
        if date.isAgeBased { return "about \(parts[0]) (from an age)" }
        guard let today, let age = age(born: parts, today: today) else { return date.day }
        return "\(date.day) (\(age))"
    }

    static func age(born: [Int], today: String) -> Int? {
        let now = today.split(separator: "-").compactMap { Int($0) }
        guard now.count == 3 else { return nil }
        let years = now[0] - born[0] - ((now[1], now[2]) < (born[1], born[2]) ? 1 : 0)
        return years >= 0 ? years : nil
    }

    // MARK: Helpers

    /// A lead column (a date, a checkbox) and a body whose further lines are indented under
    /// the first, so a multi-line note stays readable.
    static func entry(lead: String, body: String) -> [String] {
        let indent = String(repeating: " ", count: TextWidth.of(lead) + 2)
        // isNewline, not "\n": text typed in Monica's web forms ends its lines with "\r\n",
        // which Swift keeps as one Character.
        let bodyLines = body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
            sanitize($0.trimmed)
        }
        var lines = [lead + "  " + (bodyLines.first ?? "")]
        lines += bodyLines.dropFirst().map { $0.isEmpty ? "" : indent + $0 }
        return lines.map(trimTrailing)
    }

    /// Columns aligned by display width; no trailing spaces.
    static func align(_ rows: [[String]]) -> [String] {
        Table.render(rows.map { $0.map { Span(sanitize($0)) } }).map { trimTrailing($0.plainText) }
    }

    /// Monica's text is the user's own, but a control character in it must not reach the
    /// terminal or break the columns: shown as the terminal sanitizer shows it, a tab as a space.
    static func sanitize(_ text: String) -> String {
        String(TerminalSanitizer.visible(text).map { $0 == "\t" ? " " : $0 })
    }

    static func clip(_ text: String, _ width: Int) -> String {
        text.count > width ? String(text.prefix(width - 1)) + "…" : text
    }

    static func trimTrailing(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    static func plural(_ noun: String, _ count: Int) -> String {
        if count == 1 { return noun }
        if noun.hasSuffix("y") { return String(noun.dropLast()) + "ies" }
        return noun + "s"
    }
}
