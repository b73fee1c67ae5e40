import FoundationEssentials
import Glibc
import HarkCore

extension HarkCommandLine {
    /// `hark stats [-s NAME] [--json]`: per session (and, for one session, per thread) the
    /// messages, the tokens in and out the servers counted, and how fast the last replies came.
    func stats(_ parsed: ParsedOptions) throws -> Int32 {
        let (store, session) = try readOnlyHistory(parsed)
        let names = try session.map { [$0] } ?? store.sessionsWithMessages()
        if parsed.flag("--json") {
            var out = ""
            for name in names {
                var object = try store.stats(session: name).json.object ?? [:]
                object["session"] = .string(name)
                if session != nil {
                    object["threads"] = .array(try store.threads(session: name).map { thread in
                        var entry = try store.stats(threadID: thread.id).json.object ?? [:]
                        entry["id"] = .number(Double(thread.id))
                        entry["title"] = .string(thread.title)
                        return .object(entry)
                    })
                }
                out += JSON.object(object).encoded() + "\n"
            }
            terminal.write(out)
            return 0
        }
        var rows: [[String]] = [["session", "messages", "tokens in", "tokens out", "first byte", "tokens/s"]]
        for name in names { rows.append(Self.row(name, try store.stats(session: name))) }
        if let session {
            rows.append([])
            rows.append(["thread", "messages", "tokens in", "tokens out", "first byte", "tokens/s"])
            for thread in try store.threads(session: session) {
                rows.append(Self.row("#\(thread.id) " + Shell.clip(thread.title, 30), try store.stats(threadID: thread.id)))
            }
        }
        terminal.page(Self.table(rows))
        return 0
    }

    static func row(_ name: String, _ stats: UsageStats) -> [String] {
        [name, String(stats.messages), String(stats.promptTokens), String(stats.completionTokens),
         stats.firstByteSeconds.map { String(cFormat: "%.2f s", $0) } ?? "-",
         stats.tokensPerSecond.map { String(cFormat: "%.1f", $0) } ?? "-"]
    }

    /// Columns padded to their widest cell: the first left-aligned, numbers right-aligned.
    static func table(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? TextWidth.of($0[column]) : 0 }.max() ?? 0 }
        return rows.map { cells in
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - TextWidth.of(cell))
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
