import FoundationEssentials
import Glibc

/// Full-text search over the history, and each session's typed lines for the line editor.
extension HistoryStore {
    /// Full-text search, newest first. Each word of `text` must occur (within one segment of a
    /// long reply); `word*` matches a prefix. A hit carries a snippet and the message's size,
    /// never its text: a search reads the index and one segment per hit, so it answers in
    /// milliseconds however large the stored replies (`message(id:)` reads the whole text).
    public func search(_ text: String, session: String? = nil, limit: Int = 20) throws -> [SearchHit] {
        let query = Self.ftsQuery(text)
        guard !query.isEmpty else { return [] }
        try finishIndexing()
        return try wrap {
            // One statement (each prepared statement costs a parse; a search is a few ms in all).
            // Each index is walked newest first and stops at the limit (the segments' index at
            // `limit` distinct messages); then one snippet per hit, from its first segment if
            // that matches, else from its newest matching segment.
            let filter = session == nil ? "" : " AND m.session = ?2"
            return try database.rows(Self.hits, """
                FROM (WITH found(id, segment) AS (
                        SELECT * FROM (SELECT m.id, 0 FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
                            WHERE messages_fts MATCH ?1\(filter) ORDER BY messages_fts.rowid DESC LIMIT ?3)
                        UNION ALL
                        SELECT * FROM (SELECT DISTINCT mm.message_id, 1 FROM message_more_fts
                            JOIN message_more mm ON mm.id = message_more_fts.rowid JOIN messages m ON m.id = mm.message_id
                            WHERE message_more_fts MATCH ?1\(filter) ORDER BY message_more_fts.rowid DESC LIMIT ?3)),
                    chosen(id, segment) AS (SELECT id, min(segment) FROM found GROUP BY id ORDER BY id DESC LIMIT ?3)
                    SELECT chosen.id AS id, CASE chosen.segment
                        WHEN 0 THEN (SELECT snippet(messages_fts, 0, char(1), char(2), '…', 12) FROM messages_fts
                                     WHERE messages_fts MATCH ?1 AND messages_fts.rowid = chosen.id)
                        ELSE (SELECT snippet(message_more_fts, 0, char(1), char(2), '…', 12) FROM message_more_fts
                              JOIN message_more mm ON mm.id = message_more_fts.rowid
                              WHERE message_more_fts MATCH ?1 AND mm.message_id = chosen.id
                                AND message_more_fts.rowid BETWEEN
                                    (SELECT min(id) FROM message_more WHERE message_id = chosen.id)
                                    AND (SELECT max(id) FROM message_more WHERE message_id = chosen.id)
                              ORDER BY message_more_fts.rowid DESC LIMIT 1) END AS snippet
                    FROM chosen) best
                JOIN messages m ON m.id = best.id JOIN threads t ON t.id = m.thread_id
                ORDER BY m.id DESC
                """, values: [.text(query), session.map { .text($0) } ?? .null, .integer(Int64(limit))])
        }
    }

    /// Turns what a user typed into an FTS5 query that cannot be a syntax error: every word is
    /// a quoted phrase; a trailing `*` keeps prefix matching.
    public static func ftsQuery(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).compactMap { word -> String? in
            var word = String(word)
            let prefix = word.hasSuffix("*")
            if prefix { word.removeLast() }
            guard !word.isEmpty else { return nil }
            // A quote inside a phrase is doubled (by scalar: no Foundation bridge per word).
            var quoted = String.UnicodeScalarView()
            for scalar in word.unicodeScalars {
                if scalar == "\"" { quoted.append(scalar) }
                quoted.append(scalar)
            }
            return "\"" + String(quoted) + "\"" + (prefix ? "*" : "")
        }.joined(separator: " ")
    }

    // MARK: Input history

    public func addInputLine(session: String, line: String) throws {
        try wrap {
            try database.run("INSERT INTO input_history(session, line, created_at) VALUES (?, ?, ?)",
                             .text(session), .text(line), timestamp)
        }
    }

    /// The last `limit` lines typed in a session, oldest first.
    public func inputHistory(session: String, limit: Int = 1000) throws -> [String] {
        try wrap {
            try database.query("SELECT line FROM input_history WHERE session = ? ORDER BY id DESC LIMIT ?",
                               .text(session), .integer(Int64(limit))).compactMap { $0["line"].string }.reversed()
        }
    }
}
