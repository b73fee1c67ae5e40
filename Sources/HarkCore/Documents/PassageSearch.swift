import FoundationEssentials
import Glibc

/// A passage found for a question: a piece of a document, or a note.
public struct Passage: Sendable, Equatable {
    /// The passage's row (local_chunks), or nil for a note.
    public var chunkID: Int64?
    /// The document's name, or `note of 2026-03-07`.
    public var source: String
    public var lineStart: Int
    public var lineEnd: Int
    public var heading: String
    /// The matching words with \u{1}…\u{2} around each hit (FTS5 snippet).
    public var snippet: String
    /// BM25 as FTS5 gives it: lower is better.
    public var score: Double
    /// A note's text (a document passage's is read when needed).
    public var text: String?

    /// `booking.md:4-9`, `note of 2026-03-07`.
    public var citation: String {
        guard chunkID != nil else { return source }
        return "\(source):\(lineStart)" + (lineEnd > lineStart ? "-\(lineEnd)" : "")
    }
}

/// Finds the passages that answer a question: BM25 over the documents' passages and the
/// session's notes, merged with vector similarity by reciprocal rank fusion when vectors exist.
/// Reads snippets, not whole passages; the text is read only for the few sent to a model.
public struct PassageSearch: Sendable {
    let history: SessionHistory

    public init(history: SessionHistory) {
        self.history = history
    }

    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "about", "as", "into",
        "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had", "will", "would",
        "can", "could", "should", "shall", "may", "might", "must", "i", "me", "my", "we", "our", "you", "your", "he", "she",
        "it", "its", "they", "them", "their", "this", "that", "these", "those", "what", "which", "who", "whom", "whose",
        "when", "where", "why", "how", "there", "here", "if", "then", "so", "than", "not", "no", "yes", "please", "tell",
        "show", "find", "give", "any", "some", "all", "s", "t", "'s", "much", "many",
    ]

    /// An FTS5 query for a question: its words that carry meaning, each quoted, any of them
    /// (BM25 ranks passages with more and rarer ones first). Empty when it has none.
    public static func query(for question: String) -> String {
        let words = AnswerWords(question).words.map { $0.replacingOccurrences(of: "'", with: "") }.filter { !$0.isEmpty }
        var kept: [String] = []
        for word in words where !stopWords.contains(word) && !kept.contains(word) { kept.append(word) }
        if kept.isEmpty { kept = Array(Set(words)).sorted() }
        return kept.map { "\"" + $0 + "\"" }.joined(separator: " OR ")
    }

    /// The weights of BM25 for the passages' columns, heading and text: a word in a heading
    /// counts twice. The same as the table's `rank` (migration 010-local-documents).
    static let weights = "2.0, 1.0"

    /// The best passages of documents and notes, by BM25.
    public func keywordPassages(_ question: String, limit: Int) throws -> [Passage] {
        let query = Self.query(for: question)
        guard !query.isEmpty else { return [] }
        return try history.tables { database in
            // The best few by score first, and the snippets, lines and names of those only.
            // `ORDER BY bm25(…) LIMIT n` keeps SQLite's top-n sorter; FTS5's own `ORDER BY
            // rank` sorts every match (about 9,500 for a three-word question in 100 MB of
            // documents) and read a third more (BENCHMARKS.md). A snippet needs the row in
            // a MATCH, so the few are found again by rowid, which FTS5 seeks to directly; CROSS
            // JOIN keeps the few outside (with the limit a parameter, the planner would walk
            // every match and look each up in the few). Other sessions' passages are filtered
            // afterwards, so a few more are read than shown.
            let documents = try database.query("""
                SELECT c.id AS id, d.name AS name, c.line_start AS line_start, c.line_end AS line_end, c.heading AS heading,
                       snippet(local_chunks_fts, 1, char(1), char(2), '…', 24) AS snippet, best.score AS score
                FROM (SELECT rowid AS id, bm25(local_chunks_fts, \(Self.weights)) AS score FROM local_chunks_fts
                      WHERE local_chunks_fts MATCH ?1 ORDER BY score LIMIT ?3) best
                CROSS JOIN local_chunks_fts ON local_chunks_fts.rowid = best.id AND local_chunks_fts MATCH ?1
                JOIN local_chunks c ON c.id = best.id JOIN local_documents d ON d.id = c.document_id
                WHERE d.session = ?2 ORDER BY best.score
                """, values: [.text(query), .text(history.session), .integer(Int64(limit * 3))])
                .prefix(limit).map { row in
                    Passage(chunkID: row["id"].int64, source: row["name"].string ?? "", lineStart: row["line_start"].int ?? 0,
                            lineEnd: row["line_end"].int ?? 0, heading: row["heading"].string ?? "",
                            snippet: row["snippet"].string ?? "", score: row["score"].double ?? 0)
                }
            return Array((Array(documents) + (try notes(query, limit: limit, in: database))).sorted { $0.score < $1.score }
                .prefix(limit))
        }
    }

    /// The session's notes that match: its own messages outside forms and commands. A session
    /// that has none (a library of documents only) skips the notes' index altogether.
    func notes(_ query: String, limit: Int, in database: Database) throws -> [Passage] {
        let some = try database.scalar("SELECT EXISTS (SELECT 1 FROM messages WHERE session = ? AND role = 'user')",
                                       .text(history.session))
        guard some.int == 1 else { return [] }
        try history.finishIndexing()  // a message is indexed beside its thread
        return try database.query("""
            SELECT m.created_at AS created_at, snippet(messages_fts, 0, char(1), char(2), '…', 24) AS snippet,
                   bm25(messages_fts) AS score, substr(m.text, 1, 2000) AS text
            FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
            WHERE messages_fts MATCH ?1 AND m.session = ?2 AND m.role = 'user' AND substr(m.text, 1, 1) != '/'
              AND m.thread_id NOT IN (SELECT thread_id FROM local_forms)
            ORDER BY bm25(messages_fts) LIMIT ?3
            """, values: [.text(query), .text(history.session), .integer(Int64(limit))]).map { row in
                let date = FormDate.local(Date(timeIntervalSince1970: row["created_at"].double ?? 0))
                return Passage(chunkID: nil, source: "note of \(date)", lineStart: 0, lineEnd: 0, heading: "",
                               snippet: row["snippet"].string ?? "", score: row["score"].double ?? 0, text: row["text"].string)
            }
    }

    /// The whole text of passages, by row, for a model.
    public func texts(_ ids: [Int64]) throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        return try history.tables { database in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            var texts: [Int64: String] = [:]
            for row in try database.query("SELECT id, text FROM local_chunks WHERE id IN (\(marks))", values: ids.map { .integer($0) }) {
                if let id = row["id"].int64 { texts[id] = row["text"].string ?? "" }
            }
            return texts
        }
    }

    /// Passages by vector similarity, merged with the BM25 list: each passage scores the sum
    /// of 1 / (60 + its rank) over the lists it is in (reciprocal rank fusion, as Cormack et
    /// al. proposed), so neither list's raw scores need to be comparable.
    public func fused(keyword: [Passage], vector: [(id: Int64, similarity: Float)], limit: Int) throws -> [Passage] {
        guard !vector.isEmpty else { return Array(keyword.prefix(limit)) }
        var scores: [String: Double] = [:]
        var byKey: [String: Passage] = [:]
        func key(_ passage: Passage) -> String { passage.chunkID.map { "c\($0)" } ?? "n" + passage.source + passage.snippet }
        for (rank, passage) in keyword.enumerated() {
            scores[key(passage), default: 0] += 1 / (60 + Double(rank + 1))
            byKey[key(passage)] = passage
        }
        let missing = vector.map(\.id).filter { byKey["c\($0)"] == nil }
        let extra = try passages(missing)
        for (rank, hit) in vector.enumerated() {
            scores["c\(hit.id)", default: 0] += 1 / (60 + Double(rank + 1))
            if byKey["c\(hit.id)"] == nil, let passage = extra[hit.id] { byKey["c\(hit.id)"] = passage }
        }
        return scores.filter { byKey[$0.key] != nil }.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
            .prefix(limit).compactMap { entry in
                var passage = byKey[entry.key]
                passage?.score = -entry.value
                return passage
            }
    }

    /// Passages found by their vector only: their start as the snippet.
    func passages(_ ids: [Int64]) throws -> [Int64: Passage] {
        guard !ids.isEmpty else { return [:] }
        return try history.tables { database in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            var found: [Int64: Passage] = [:]
            for row in try database.query("""
                SELECT c.id AS id, d.name AS name, c.line_start AS line_start, c.line_end AS line_end, c.heading AS heading,
                       substr(c.text, 1, 200) AS start
                FROM local_chunks c JOIN local_documents d ON d.id = c.document_id WHERE c.id IN (\(marks))
                """, values: ids.map { .integer($0) }) {
                guard let id = row["id"].int64 else { continue }
                let start = (row["start"].string ?? "").lineSlices(keepingEmpty: false).joined(separator: " ")
                found[id] = Passage(chunkID: id, source: row["name"].string ?? "", lineStart: row["line_start"].int ?? 0,
                                    lineEnd: row["line_end"].int ?? 0, heading: row["heading"].string ?? "",
                                    snippet: start + "…", score: 0)
            }
            return found
        }
    }
}
