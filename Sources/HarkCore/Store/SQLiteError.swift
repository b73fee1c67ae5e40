import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement it came from.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }

    public var description: String {
        "\(message) (SQLite code \(code))" + (sql.map { " in: \($0.prefix(80))" } ?? "")
    }
}
