import FoundationEssentials
import Glibc

/// Files attached with /attach. An attachment waits in the `attachments` table (no message
/// yet) until the session's next message claims it, so a one-shot `hark -s x "/attach f"`
/// is still attached when the next run sends the message; once claimed it belongs to that
/// message, which /retry sends again with it and /history shows it under.
extension HistoryStore {
    static let attachmentSelect = "SELECT path, name, size, mime, backend_id FROM attachments"

    static func attachment(_ row: NamedRow) -> Attachment {
        Attachment(path: row["path"].string ?? "", name: row["name"].string ?? "", size: row["size"].int ?? 0,
                   mimeType: row["mime"].string ?? "application/octet-stream", backendID: row["backend_id"].string)
    }

    /// Adds a file to go with the session's next message.
    public func addPendingAttachment(_ attachment: Attachment, session: String) throws {
        try wrap {
            try database.run("""
                INSERT INTO attachments(session, path, name, size, mime, backend_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, .text(session), .text(attachment.path), .text(attachment.name), .integer(Int64(attachment.size)),
                .text(attachment.mimeType), SQLValue(attachment.backendID), timestamp)
        }
    }

    /// The files waiting for the session's next message, in the order they were attached.
    public func pendingAttachments(session: String) throws -> [Attachment] {
        try wrap {
            try database.query(Self.attachmentSelect + " WHERE session = ? AND message_id IS NULL ORDER BY id", .text(session))
                .map(Self.attachment)
        }
    }

    /// Gives the waiting files to a message and returns them.
    public func claimPendingAttachments(session: String, messageID: Int64) throws -> [Attachment] {
        try wrap {
            try database.transaction {
                let waiting = try database.query(Self.attachmentSelect + " WHERE session = ? AND message_id IS NULL ORDER BY id",
                                                 .text(session)).map(Self.attachment)
                try database.run("UPDATE attachments SET message_id = ? WHERE session = ? AND message_id IS NULL",
                                 .integer(messageID), .text(session))
                return waiting
            }
        }
    }

    /// The files that went with a message.
    public func attachments(messageID: Int64) throws -> [Attachment] {
        try wrap {
            try database.query(Self.attachmentSelect + " WHERE message_id = ? ORDER BY id", .integer(messageID)).map(Self.attachment)
        }
    }
}
