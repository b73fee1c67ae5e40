import Testing
import TestSupport
@testable import HarkCore

@Suite struct MigrationTests {
    @Test func migratesAnEmptyFileAndRecordsEveryStep() throws {
        let directory = TemporaryDirectory()
        let database = try Database(path: directory.file("h.db"))
        let applied = try Migrations.migrate(database)
        #expect(applied == Migrations.all.map(\.name))
        #expect(try Migrations.migrate(database).isEmpty, "a second run applies nothing")
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type IN ('table','view')").compactMap { $0["name"].string }
        for table in ["sessions", "threads", "messages", "message_parts", "input_history", "attachments", "messages_fts",
                      "local_forms", "message_more", "message_more_fts", "local_documents", "local_document_folders", "local_chunks",
                      "local_chunks_fts", "local_chunk_vectors"] {
            #expect(tables.contains(table), "missing \(table)")
        }
    }

    @Test func migratesFromTheOldestSchemaKeepingData() throws {
        let directory = TemporaryDirectory()
        let database = try Database(path: directory.file("h.db"))
        try Migrations.migrate(database, steps: [Migrations.all[0]])
        try database.run("INSERT INTO threads(session, title, created_at, updated_at) VALUES ('s', 't', 0, 0)")
        try database.run("""
            INSERT INTO messages(thread_id, session, role, text, status, created_at, updated_at)
            VALUES (1, 's', 'user', 'remember the aardvark', 'complete', 0, 0)
            """)
        let applied = try Migrations.migrate(database)
        #expect(applied == Migrations.all.dropFirst().map(\.name))
        // The full-text index was built over rows that existed before it.
        let hits = try database.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'aardvark'")
        #expect(hits.count == 1)
    }

    /// A file a newer hark made (a higher user_version, or a step this one does not know) is
    /// never written: one line says so; reading it still works.
    @Test func aHistoryFromANewerHarkIsReadNeverWritten() throws {
        let directory = TemporaryDirectory()
        for mark in ["PRAGMA user_version = 999",
                     "INSERT INTO schema_migrations(name, applied_at) VALUES ('999-from-the-future', 0)"] {
            let path = directory.file("\(mark.hashValue).db")
            let made = try HistoryStore(path: path)
            #expect(try made.database.scalar("PRAGMA user_version").int == Migrations.all.count)
            let thread = try made.createThread(session: "local", title: "notes")
            try made.addMessage(threadID: thread.id, session: "local", role: .user, text: "remember the aardvark")
            try made.database.execute(mark)
            let before = try made.database.scalar("SELECT count(*) FROM messages").int
            do {
                _ = try HistoryStore(path: path)
                Issue.record("a newer history was opened for writing (\(mark))")
            } catch let error as HarkError {
                #expect(error.exitCode == .storage)
                #expect(error.message.contains("was made by a newer hark"), "\(error.message)")
                #expect(error.message.contains("upgrade hark, or read it with hark history, search or export"))
            }
            #expect(try made.database.scalar("SELECT count(*) FROM messages").int == before)
            let reader = try #require(HistoryStore.openForReading(path: path), "a newer history can still be read")
            #expect(try reader.search("aardvark").count == 1)
        }
    }

    @Test func migrationNamesAreUniqueAndOrdered() {
        let names = Migrations.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names == names.sorted())
    }
}
