import FoundationEssentials
import Glibc

/// One file of the library, as it was when last read.
public struct DocumentRecord: Sendable, Equatable {
    public var id: Int64
    public var path: String
    /// As shown and cited: the path under the folder that was added (`trips/booking.md`), or
    /// the file's name.
    public var name: String
    public var format: DocumentFormat
    public var size: Int
    public var modified: Double
    public var chunks: Int
    public var indexedAt: Date
}

/// What a change of the library did, for one line to the user.
public struct IndexReport: Sendable, Equatable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    public var removed: [String] = []
    public var chunks = 0
    public var bytes = 0
    /// Files not read, each with why (`a.pdf: pdftotext is missing…`).
    public var skipped: [String] = []

    public var changed: Bool { added + updated > 0 || !removed.isEmpty }
}

/// The user's documents in a local session: files and folders added with `/docs add`, cut
/// into passages (Chunker) stored in the history database with their lines and heading, and
/// indexed for BM25 (migration 010-local-documents). A file is read again when its size or
/// modification time changed; files gone are dropped; new files in added folders are picked up.
public struct DocumentLibrary: Sendable {
    let history: SessionHistory
    let now: @Sendable () -> Date
    var chunker = Chunker()
    /// A transaction is committed after this many bytes of text, so a large folder neither
    /// holds the write lock for long nor keeps one huge transaction.
    var batchBytes = 16 << 20

    public init(history: SessionHistory, now: @escaping @Sendable () -> Date) {
        self.history = history
        self.now = now
    }

    var session: String { history.session }

    // MARK: Reading the library

    static let select = "SELECT id, path, name, format, size, modified, chunks, indexed_at FROM local_documents"

    static func record(_ row: NamedRow) -> DocumentRecord {
        DocumentRecord(id: row["id"].int64 ?? 0, path: row["path"].string ?? "", name: row["name"].string ?? "",
                       format: DocumentFormat(rawValue: row["format"].string ?? "") ?? .text, size: row["size"].int ?? 0,
                       modified: row["modified"].double ?? 0, chunks: row["chunks"].int ?? 0,
                       indexedAt: Date(timeIntervalSince1970: row["indexed_at"].double ?? 0))
    }

    public func documents() throws -> [DocumentRecord] {
        try history.tables { database in
            try database.query(Self.select + " WHERE session = ? ORDER BY name", .text(session)).map(Self.record)
        }
    }

    /// The documents that hold these passages (those a search found), by the passages' rows:
    /// names have no index, and matching them scanned the whole library (BENCHMARKS.md).
    func documents(holding chunkIDs: Set<Int64>) throws -> [DocumentRecord] {
        guard !chunkIDs.isEmpty else { return [] }
        return try history.tables { database in
            let marks = Array(repeating: "?", count: chunkIDs.count).joined(separator: ",")
            return try database.query(Self.select + " WHERE session = ? AND id IN (SELECT document_id FROM local_chunks WHERE id IN (\(marks)))",
                                      values: [.text(session)] + chunkIDs.sorted().map { .integer($0) }).map(Self.record)
        }
    }

    public func isEmpty() throws -> Bool { try !holdsMore(than: 0) }

    /// Whether the library holds more than `limit` documents, without counting them all.
    public func holdsMore(than limit: Int) throws -> Bool {
        try history.tables { database in
            try database.scalar("SELECT count(*) FROM (SELECT 1 FROM local_documents WHERE session = ? LIMIT ?)",
                                .text(session), .integer(Int64(limit + 1))).int ?? 0
        } > limit
    }

    /// Up to this many documents, /ask checks every file before it searches (a stat each, well
    /// under a millisecond for them all); above, only the files its passages come from, after
    /// the search: 10,000 stats and rows were most of an /ask's time (BENCHMARKS.md).
    public static let checkAllBeforeAsk = 1_000

    func folders() throws -> [String] {
        try history.tables { database in
            try database.query("SELECT path FROM local_document_folders WHERE session = ? ORDER BY path", .text(session))
                .compactMap { $0["path"].string }
        }
    }

    // MARK: Changing it

    /// Adds files and folders (a folder: every readable file under it, now and later).
    public func add(_ typed: [String]) throws -> IndexReport {
        var report = IndexReport()
        var files: [(path: String, name: String)] = []
        for raw in typed {
            let path = FileWalk.absolute(raw)
            if FileWalk.isDirectory(path) {
                try history.tables { database in
                    try database.run("INSERT OR IGNORE INTO local_document_folders(session, path, added_at) VALUES (?, ?, ?)",
                                     .text(session), .text(path), .real(now().timeIntervalSince1970))
                }
                let under = FileWalk.files(under: path)
                if under.isEmpty { report.skipped.append("\(raw): no text, Markdown, source or PDF files in it") }
                files += under.map { ($0, Self.name(of: $0, in: path)) }
            } else if FileWalk.stamp(path) == nil {
                report.skipped.append("\(raw): no such file")
            } else if DocumentFormat.of(path) == nil {
                report.skipped.append("\(raw): not a text, Markdown, source or PDF file")
            } else {
                files.append((path, path.lastPathComponent))
            }
        }
        try index(files, force: false, into: &report)
        return report
    }

    /// `trips/booking.md` for `/home/ann/trips/booking.md` added with `/home/ann/trips`.
    static func name(of path: String, in folder: String) -> String {
        folder.lastPathComponent + String(path.dropFirst(folder.count))
    }

    /// Removes documents by name, path, or the folder they were added with (and the folder
    /// itself, so its new files are not picked up again).
    public func remove(_ typed: String) throws -> [String] {
        let path = FileWalk.absolute(typed)
        let trimmed = typed.hasSuffix("/") ? String(typed.dropLast()) : typed
        let all = try documents()
        var matching = all.filter { document in
            document.name == trimmed || document.path == path || document.name.hasPrefix(trimmed + "/")
                || document.path.hasPrefix(path + "/")
        }
        // `notes.txt` for `docs/notes.txt`, when only one document has that file name.
        if matching.isEmpty {
            let named = all.filter { $0.name.lastPathComponent == trimmed }
            if named.count == 1 { matching = named }
        }
        try history.tables { database in
            try database.transaction {
                for document in matching {
                    try database.run("DELETE FROM local_documents WHERE id = ?", .integer(document.id))
                }
                for folder in try folders() where folder == path || folder.lastPathComponent == trimmed {
                    try database.run("DELETE FROM local_document_folders WHERE session = ? AND path = ?",
                                     .text(session), .text(folder))
                }
            }
        }
        return matching.map(\.name)
    }

    /// Reads again what changed: files whose size or time differ, files gone (dropped), and
    /// with `folders`, new files in the folders added. `force` reads every file again.
    /// `only` limits it to the documents that hold those passages (no folder is walked then).
    public func refresh(folders walk: Bool, force: Bool = false, only chunkIDs: Set<Int64>? = nil) throws -> IndexReport {
        var report = IndexReport()
        let known = try chunkIDs.map { try documents(holding: $0) } ?? documents()
        var changed: [(path: String, name: String)] = []
        var gone: [DocumentRecord] = []
        for document in known {
            guard let stamp = FileWalk.stamp(document.path) else {
                gone.append(document)
                continue
            }
            if force || stamp.size != document.size || stamp.modified != document.modified {
                changed.append((document.path, document.name))
            } else {
                report.unchanged += 1
            }
        }
        if !gone.isEmpty {
            try history.tables { database in
                try database.transaction {
                    for document in gone { try database.run("DELETE FROM local_documents WHERE id = ?", .integer(document.id)) }
                }
            }
            report.removed = gone.map(\.name)
        }
        if walk && chunkIDs == nil {
            let paths = Set(known.map(\.path))
            for folder in try folders() where FileWalk.isDirectory(folder) {
                changed += FileWalk.files(under: folder).filter { !paths.contains($0) }.map { ($0, Self.name(of: $0, in: folder)) }
            }
        }
        try index(changed, force: true, into: &report)
        return report
    }

    /// Reads and stores files, a batch of them per transaction, on a connection of its own: a
    /// large folder must not hold the lock of the connection a streaming reply writes through
    /// (other processes and connections wait on SQLite's busy timeout, batch by batch).
    func index(_ files: [(path: String, name: String)], force: Bool, into report: inout IndexReport) throws {
        guard !files.isEmpty else { return }
        let writer = try history.tables { database in try Database(path: database.path) }
        // As the history's own connection (HistoryStore): a new connection's default, FULL,
        // synced the WAL at every batch's commit.
        try writer.execute("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL")
        let bulk = files.count >= Self.bulkFiles
        if bulk { try Self.mergeSettings(writer, bulk: true) }
        defer {
            if bulk { try? Self.mergeSettings(writer, bulk: false) }
            // Every hark that opens the history after this one reads a WAL left behind from
            // its start to rebuild its index (60 MB after 100 MB of documents: 100 ms for each
            // `hark ask`); the connection that wrote it folds it into the database now.
            if report.added + report.updated > 0 { _ = try? writer.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        var pending: [(path: String, name: String, format: DocumentFormat, stamp: (size: Int, modified: Double), chunks: [Chunk])] = []
        var pendingBytes = 0
        var pdfHintGiven = false
        let known = Dictionary(try documents().map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for file in files {
            guard let format = DocumentFormat.of(file.path), let stamp = FileWalk.stamp(file.path) else { continue }
            if !force, let existing = known[file.path], existing.size == stamp.size, existing.modified == stamp.modified {
                report.unchanged += 1
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try DocumentFormat.text(of: file.path, format: format)
            } catch {
                if format == .pdf && DocumentFormat.pdftotext == nil {
                    if !pdfHintGiven { report.skipped.append(DocumentFormat.pdfHint) }
                    pdfHintGiven = true
                } else {
                    report.skipped.append("\(file.name): \(error.userMessage)")
                }
                continue
            }
            pending.append((file.path, file.name, format, stamp, chunker.chunks(of: bytes, format: format)))
            pendingBytes += bytes.count
            if known[file.path] == nil { report.added += 1 } else { report.updated += 1 }
            report.bytes += bytes.count
            if pendingBytes >= batchBytes {
                report.chunks += try store(pending, on: writer)
                pending.removeAll(keepingCapacity: true)
                pendingBytes = 0
            }
        }
        if !pending.isEmpty { report.chunks += try store(pending, on: writer) }
    }

    /// From this many files on, the index is merged once at the end rather than as it grows.
    static let bulkFiles = 200

    /// FTS5 merges its segments a little at every commit (automerge 4) and all of a level at
    /// 16 (crisismerge): for a folder of thousands of files that rewrites the same postings
    /// many times over. While a large add runs, merging waits; then the index is merged once
    /// ('optimize', the fastest to search) and the defaults are back.
    ///
    /// FTS5 also writes its pending terms out as a segment whenever they pass `hashsize` (1 MB
    /// by default): a batch of 16 MB of text made dozens of small segments, each sorted on its
    /// own and merged again. With room for a whole batch, each commit writes one: 100 MB of
    /// Markdown indexed in 4.6 s instead of 6.7 (BENCHMARKS.md), for the memory of one
    /// batch's terms while it is written.
    static func mergeSettings(_ database: Database, bulk: Bool) throws {
        try database.transaction {
            try database.execute(bulk
                ? "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('automerge', 0); "
                    + "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('crisismerge', 64); "
                    + "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('hashsize', \(bulkHashBytes));"
                : "INSERT INTO local_chunks_fts(local_chunks_fts) VALUES ('optimize'); "
                    + "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('automerge', 4); "
                    + "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('crisismerge', 16); "
                    + "INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('hashsize', \(1 << 20));")
        }
    }

    /// FTS5's limit on the terms it holds before writing them out, during a large add: more
    /// than a batch's (`batchBytes` of text) take.
    static let bulkHashBytes = 64 << 20

    /// One transaction: each file's row, its old passages out, its new ones in.
    func store(_ files: [(path: String, name: String, format: DocumentFormat, stamp: (size: Int, modified: Double), chunks: [Chunk])],
               on database: Database) throws -> Int {
        let time = now().timeIntervalSince1970
        return try history.tables { _ in
            try database.transaction {
                let upsert = try database.prepare("""
                    INSERT INTO local_documents(session, path, name, format, size, modified, chunks, added_at, indexed_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
                    ON CONFLICT(session, path) DO UPDATE SET name = excluded.name, format = excluded.format,
                        size = excluded.size, modified = excluded.modified, chunks = excluded.chunks, indexed_at = excluded.indexed_at
                    RETURNING id
                    """)
                let clear = try database.prepare("DELETE FROM local_chunks WHERE document_id = ?")
                let insert = try database.prepare(
                    "INSERT INTO local_chunks(document_id, line_start, line_end, heading, text) VALUES (?, ?, ?, ?, ?)")
                // The new passages are indexed by one statement at the end, not a trigger per row:
                // FTS5 writes its pending terms out at every statement's savepoint, so a row at a
                // time made a tiny segment per passage and merged them again (twice the CPU).
                // The first new passage's id: the rows after it are new (each is one more than the
                // largest when inserted, and only older rows are deleted in between).
                var first: Int64?
                var count = 0
                let returned = upsert.columnNames
                for file in files {
                    upsert.reset()
                    try upsert.bind([.text(session), .text(file.path), .text(file.name), .text(file.format.rawValue),
                                     .integer(Int64(file.stamp.size)), .real(file.stamp.modified),
                                     .integer(Int64(file.chunks.count)), .real(time)])
                    guard try upsert.step(), let id = upsert.row(names: returned)["id"].int64 else { continue }
                    while try upsert.step() {}
                    clear.reset()
                    try clear.bind([.integer(id)])
                    while try clear.step() {}
                    for chunk in file.chunks {
                        insert.reset()
                        try insert.bind([.integer(id), .integer(Int64(chunk.lineStart)), .integer(Int64(chunk.lineEnd)),
                                         .text(chunk.heading), .text(chunk.text)])
                        while try insert.step() {}
                        if first == nil { first = database.lastInsertRowID }
                    }
                    count += file.chunks.count
                }
                if let first {
                    try database.run("INSERT INTO local_chunks_fts(rowid, heading, text) SELECT id, heading, text FROM local_chunks WHERE id >= ?",
                                     .integer(first))
                }
                return count
            }
        }
    }
}
