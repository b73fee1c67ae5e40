import FoundationEssentials
import Glibc

/// The schema, as an append-only list of named steps. Applied names are recorded in
/// `schema_migrations`; each step runs with its bookkeeping in one IMMEDIATE transaction, so
/// two hark processes opening a new file at once cannot both apply it. Never edit or reorder a
/// step that has shipped: add a new one.
public struct Migration: Sendable {
    public let name: String
    public let sql: String
}

public enum Migrations {
    public static let all: [Migration] = [
        Migration(name: "001-sessions-threads-messages", sql: """
            CREATE TABLE sessions (
                name TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                current_thread INTEGER,
                last_seen_message INTEGER NOT NULL DEFAULT 0,
                created_at REAL NOT NULL
            );
            CREATE TABLE threads (
                id INTEGER PRIMARY KEY,
                session TEXT NOT NULL,
                title TEXT NOT NULL,
                backend_id TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE INDEX threads_by_session ON threads(session, updated_at);
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                session TEXT NOT NULL,
                role TEXT NOT NULL,
                text TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                backend_id TEXT,
                model TEXT,
                prompt_tokens INTEGER,
                completion_tokens INTEGER,
                total_tokens INTEGER,
                error TEXT,
                writer_pid INTEGER
            );
            CREATE INDEX messages_by_thread ON messages(thread_id, id);
            CREATE INDEX messages_by_session ON messages(session, id);
            -- A reply is appended here piece by piece while it streams (cheap inserts, safe
            -- against kill -9) and folded into messages.text once when it ends.
            CREATE TABLE message_parts (
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                text TEXT NOT NULL,
                PRIMARY KEY (message_id, seq)
            ) WITHOUT ROWID;
            CREATE TABLE input_history (
                id INTEGER PRIMARY KEY,
                session TEXT NOT NULL,
                line TEXT NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE INDEX input_history_by_session ON input_history(session, id);
            CREATE TABLE attachments (
                id INTEGER PRIMARY KEY,
                message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
                session TEXT NOT NULL,
                path TEXT,
                name TEXT NOT NULL,
                size INTEGER,
                mime TEXT,
                backend_id TEXT,
                created_at REAL NOT NULL
            );
            """),
        Migration(name: "002-full-text-search", sql: """
            CREATE VIRTUAL TABLE messages_fts USING fts5(
                text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
            );
            CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            END;
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
                INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            END;
            INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
            """),
        // The local session's forms: the template as it was when the form started (a later
        // edit of the file cannot break a form half-filled), the answers, the open question.
        // A form lives in a thread and goes when the thread is deleted.
        Migration(name: "003-local-forms", sql: """
            CREATE TABLE local_forms (
                id INTEGER PRIMARY KEY,
                uid TEXT NOT NULL,
                session TEXT NOT NULL,
                thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                template TEXT NOT NULL,
                title TEXT NOT NULL,
                source TEXT NOT NULL,
                stage TEXT NOT NULL,
                current_field TEXT,
                walking INTEGER NOT NULL DEFAULT 0,
                answers TEXT NOT NULL DEFAULT '{}',
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                completed_at REAL,
                submitted_to TEXT,
                submitted_at REAL
            );
            CREATE INDEX local_forms_by_thread ON local_forms(thread_id);
            CREATE INDEX local_forms_by_session ON local_forms(session, updated_at);
            """),
        // A long reply (a 50 MB build console) is kept in segments of about 1 MB: the first in
        // messages.text, the rest here, each indexed on its own. Folding it into one value
        // took five times its size in memory.
        Migration(name: "004-message-segments", sql: """
            CREATE TABLE message_more (
                id INTEGER PRIMARY KEY,
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                text TEXT NOT NULL
            );
            CREATE UNIQUE INDEX message_more_by_message ON message_more(message_id, seq);
            CREATE VIRTUAL TABLE message_more_fts USING fts5(
                text, content='message_more', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
            );
            CREATE TRIGGER message_more_fts_insert AFTER INSERT ON message_more BEGIN
                INSERT INTO message_more_fts(rowid, text) VALUES (new.id, new.text);
            END;
            CREATE TRIGGER message_more_fts_delete AFTER DELETE ON message_more BEGIN
                INSERT INTO message_more_fts(message_more_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            """),
        // Every hark start looks for replies left open by a dead writer; without this partial
        // index that was a scan of the whole table (60 ms at 200,000 messages, 250 at a million).
        Migration(name: "005-open-replies-index", sql: """
            CREATE INDEX messages_being_written ON messages(writer_pid) WHERE writer_pid IS NOT NULL;
            """),
        // A reply's writer is known by a lock it holds while it writes (WriterLocks), not by
        // its PID alone, which another PID namespace sharing the folder reads as someone
        // else's. 1 while the lock is held; NULL for rows whose writer recorded its PID only.
        Migration(name: "006-writer-locks", sql: """
            ALTER TABLE messages ADD COLUMN writer_lock INTEGER;
            """),
        // Notes a reply came with and that are not its text: an n8n node that failed while the
        // workflow went on, a reply cut off at the token limit. One per line.
        Migration(name: "007-message-notes", sql: """
            ALTER TABLE messages ADD COLUMN notes TEXT;
            """),
        // Full-text indexing off the stream. Tokenizing a reply for FTS5 as it streamed cost more
        // than curl's whole run (BENCHMARKS.md): now text is stored with `unindexed` set, and
        // FullTextIndexer clears it on a connection and a thread of its own, which makes these
        // triggers index it. The index always holds exactly the rows whose `unindexed` is NULL,
        // so a delete removes from it only what was put there. `length` is the text's size in
        // bytes over all its segments (NULL for rows from before: computed when read), so
        // the newest turns that fit a budget are chosen without reading their text.
        Migration(name: "008-index-off-the-stream", sql: """
            ALTER TABLE messages ADD COLUMN unindexed INTEGER;
            ALTER TABLE messages ADD COLUMN length INTEGER;
            ALTER TABLE message_more ADD COLUMN unindexed INTEGER;
            DROP TRIGGER messages_fts_insert;
            DROP TRIGGER messages_fts_delete;
            DROP TRIGGER messages_fts_update;
            DROP TRIGGER message_more_fts_insert;
            DROP TRIGGER message_more_fts_delete;
            CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.unindexed IS NULL BEGIN
                INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
            END;
            CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.unindexed IS NULL BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, unindexed ON messages BEGIN
                INSERT INTO messages_fts(messages_fts, rowid, text) SELECT 'delete', old.id, old.text
                    WHERE old.unindexed IS NULL;
                INSERT INTO messages_fts(rowid, text) SELECT new.id, new.text WHERE new.unindexed IS NULL;
            END;
            CREATE TRIGGER message_more_fts_insert AFTER INSERT ON message_more WHEN new.unindexed IS NULL BEGIN
                INSERT INTO message_more_fts(rowid, text) VALUES (new.id, new.text);
            END;
            CREATE TRIGGER message_more_fts_delete AFTER DELETE ON message_more WHEN old.unindexed IS NULL BEGIN
                INSERT INTO message_more_fts(message_more_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            CREATE TRIGGER message_more_fts_update AFTER UPDATE OF text, unindexed ON message_more BEGIN
                INSERT INTO message_more_fts(message_more_fts, rowid, text) SELECT 'delete', old.id, old.text
                    WHERE old.unindexed IS NULL;
                INSERT INTO message_more_fts(rowid, text) SELECT new.id, new.text WHERE new.unindexed IS NULL;
            END;
            CREATE INDEX messages_unindexed ON messages(id) WHERE unindexed IS NOT NULL;
            CREATE INDEX message_more_unindexed ON message_more(id) WHERE unindexed IS NOT NULL;
            """),
        // Conversations that last. `superseded_by`: a message replaced by
        // `/edit last` (and the reply to it) points at the message that replaced it; it stays,
        // shown by `/history --all`, and is never sent again. `prompt_estimate`: hark's guess
        // of the prompt a reply answered, compared with the server's `prompt_tokens` to
        // calibrate the next guess. `first_byte_ms`, `stream_ms`: how long the reply took to
        // start and then to stream, for `/info` and `hark stats`. `thread_notes`: a thread's
        // summary of its older turns (`/compact`), sent in their place.
        Migration(name: "009-conversations", sql: """
            ALTER TABLE messages ADD COLUMN superseded_by INTEGER;
            ALTER TABLE messages ADD COLUMN prompt_estimate INTEGER;
            ALTER TABLE messages ADD COLUMN first_byte_ms INTEGER;
            ALTER TABLE messages ADD COLUMN stream_ms INTEGER;
            CREATE TABLE thread_notes (
                id INTEGER PRIMARY KEY,
                thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                text TEXT NOT NULL,
                through_message INTEGER NOT NULL,
                turns INTEGER NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE INDEX thread_notes_by_thread ON thread_notes(thread_id, id);
            """),
        // The local session's documents: each file once per session with what it was when
        // read (size, modification time), its passages with their lines and heading, indexed
        // for BM25 (porter stemming: "leaves" finds "leaving"); vectors when a model's server
        // makes them; the folders added, to notice new files. A form's value proposed from a
        // document waits in local_forms.proposal for the user's yes.
        Migration(name: "010-local-documents", sql: """
            CREATE TABLE local_documents (
                id INTEGER PRIMARY KEY,
                session TEXT NOT NULL,
                path TEXT NOT NULL,
                name TEXT NOT NULL,
                format TEXT NOT NULL,
                size INTEGER NOT NULL,
                modified REAL NOT NULL,
                chunks INTEGER NOT NULL DEFAULT 0,
                added_at REAL NOT NULL,
                indexed_at REAL NOT NULL,
                UNIQUE (session, path)
            );
            CREATE TABLE local_document_folders (
                session TEXT NOT NULL,
                path TEXT NOT NULL,
                added_at REAL NOT NULL,
                PRIMARY KEY (session, path)
            );
            CREATE TABLE local_chunks (
                id INTEGER PRIMARY KEY,
                document_id INTEGER NOT NULL REFERENCES local_documents(id) ON DELETE CASCADE,
                line_start INTEGER NOT NULL,
                line_end INTEGER NOT NULL,
                heading TEXT NOT NULL DEFAULT '',
                text TEXT NOT NULL
            );
            CREATE INDEX local_chunks_by_document ON local_chunks(document_id);
            CREATE VIRTUAL TABLE local_chunks_fts USING fts5(
                heading, text, content='local_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
            );
            INSERT INTO local_chunks_fts(local_chunks_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0)');
            -- New passages are indexed by DocumentLibrary.store, a transaction's at once.
            CREATE TRIGGER local_chunks_fts_delete AFTER DELETE ON local_chunks BEGIN
                INSERT INTO local_chunks_fts(local_chunks_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
            END;
            CREATE TABLE local_chunk_vectors (
                chunk_id INTEGER PRIMARY KEY REFERENCES local_chunks(id) ON DELETE CASCADE,
                model TEXT NOT NULL,
                vector BLOB NOT NULL
            );
            ALTER TABLE local_forms ADD COLUMN proposal TEXT;
            """),
        // A tool call the model made through MCP and its result, as a message of role `tool`
        // (its text says both, for reading and search): the call's id, name, arguments, the
        // result and the round, as JSON, so the next request replays it as the API expects.
        Migration(name: "011-tool-calls", sql: """
            ALTER TABLE messages ADD COLUMN tool_call TEXT;
            """),
        // A message sent with text piped into hark: where in its text (a byte offset) the
        // piped part begins, so the history can tell what was typed from what was piped.
        Migration(name: "012-piped-text", sql: """
            ALTER TABLE messages ADD COLUMN piped_from INTEGER;
            """),
        // The inbox and the work hark follows after it exits. `read_at`: a reply opened from
        // the inbox on its own (the session's `last_seen_message` marks all before it read).
        // `followed_work`: a build or an A2A task left running when hark exited (`state`
        // `followed`), or a task sent with a push token while hark still runs (`live`), until
        // its end is recorded (`ended`, with the message that says it). Recording an end
        // moves the row from `followed` to `ended` in the transaction that adds the message,
        // so two `hark watch` never record one end twice. `work_updates`: A2A push
        // notifications as received, stored before they are answered, so none is lost.
        Migration(name: "013-inbox-followed-work", sql: """
            ALTER TABLE messages ADD COLUMN read_at REAL;
            CREATE TABLE followed_work (
                id INTEGER PRIMARY KEY,
                session TEXT NOT NULL,
                thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                key TEXT,
                details TEXT NOT NULL DEFAULT '{}',
                push_token TEXT UNIQUE,
                state TEXT NOT NULL,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                ended_message_id INTEGER,
                UNIQUE (session, kind, key)
            );
            CREATE INDEX followed_work_by_state ON followed_work(state);
            CREATE TABLE work_updates (
                id INTEGER PRIMARY KEY,
                work_id INTEGER NOT NULL REFERENCES followed_work(id) ON DELETE CASCADE,
                body TEXT NOT NULL,
                received_at REAL NOT NULL
            );
            CREATE INDEX work_updates_by_work ON work_updates(work_id, id);
            """),
    ]

    /// Why the database was made by a newer hark, or nil when this one knows its schema: its
    /// `user_version` (the number of steps the hark that last migrated it knew) is higher than
    /// ours, or it records a step we do not know. Such a file is read, never written: what a
    /// newer hark changed could be lost or corrupted.
    public static func newerSchema(_ database: Database, steps: [Migration] = Migrations.all) throws -> String? {
        let version = try database.scalar("PRAGMA user_version").int ?? 0
        if version > steps.count {
            return "its schema version is \(version), this hark knows \(steps.count)"
        }
        guard let rows = try? database.query("SELECT name FROM schema_migrations") else { return nil }
        let known = Set(steps.map(\.name))
        if let unknown = rows.compactMap({ $0["name"].string }).sorted().first(where: { !known.contains($0) }) {
            return "it records the step \(MessageLine.name(unknown)), which this hark does not know"
        }
        return nil
    }

    /// Applies every step not yet recorded. Returns the names applied now.
    @discardableResult
    public static func migrate(_ database: Database, steps: [Migration] = Migrations.all,
                               clock: HarkClock = .system) throws -> [String] {
        let recorded: [NamedRow]
        if let rows = try? database.query("SELECT name FROM schema_migrations") {
            recorded = rows
        } else {
            try database.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)
                """)
            recorded = []
        }
        let applied = Set(recorded.compactMap { $0["name"].string })
        var appliedNow: [String] = []
        for step in steps where !applied.contains(step.name) {
            try database.transaction {
                // Another process may have applied it between our read and our lock.
                let done = try database.scalar("SELECT count(*) FROM schema_migrations WHERE name = ?", .text(step.name))
                guard done.int == 0 else { return }
                try database.execute(step.sql)
                try database.run("INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)",
                                 .text(step.name), .real(clock.now().timeIntervalSince1970))
                appliedNow.append(step.name)
            }
        }
        // The number of steps known, for an older hark to tell the file is newer than it.
        if (try database.scalar("PRAGMA user_version").int ?? 0) < steps.count {
            try database.execute("PRAGMA user_version = \(steps.count)")
        }
        return appliedNow
    }
}
