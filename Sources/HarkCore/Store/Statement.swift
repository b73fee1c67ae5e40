import CSQLite

/// A value going into or coming out of SQLite.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var int64: Int64? {
        switch self {
        case .integer(let value): return value
        case .real(let value): return Int64(value)
        case .text(let value): return Int64(value)
        default: return nil
        }
    }

    public var int: Int? { int64.map { Int($0) } }

    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    public var string: String? {
        switch self {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .null: return nil
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    public init(_ value: Int64?) { self = value.map(SQLValue.integer) ?? .null }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: Double?) { self = value.map(SQLValue.real) ?? .null }
}

/// A prepared statement, finalized when released.
public final class Statement {
    private let database: Database
    private let handle: OpaquePointer
    let sql: String

    init(database: Database, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, message: database.lastErrorMessage, sql: sql)
        }
        self.database = database
        self.handle = statement
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// True for a statement that cannot change the database (a query).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to the parameters from `first` on (1-based).
    public func bind(_ values: [SQLValue], from first: Int32 = 1) throws {
        for (offset, value) in values.enumerated() {
            let index = first + Int32(offset)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                var text = text
                code = text.withUTF8 { buffer in
                    hark_sqlite3_bind_text(handle, index, UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                        .assumingMemoryBound(to: CChar.self), Int32(buffer.count))
                }
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    hark_sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(buffer.count))
                }
            }
            try database.check(code, sql: sql)
        }
    }

    /// Binds text that SQLite reads where it lies, without a copy: `bytes` must stay valid
    /// until the statement has been stepped and reset.
    func bindText(inPlace bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        let pointer = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        try database.check(hark_sqlite3_bind_text_in_place(handle, index, pointer, Int32(bytes.count)), sql: sql)
    }

    /// Advances; true while there is a row to read.
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(code: code, message: database.lastErrorMessage, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The current row, its values read by the names `names` (the statement's `columnNames`,
    /// read once for all its rows).
    public func row(names: [String]) -> NamedRow {
        let count = sqlite3_column_count(handle)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count { values.append(value(at: column)) }
        return NamedRow(values: values, names: names)
    }

    /// The current row's first value: what `SELECT count(*) …` and the like return.
    func firstValue() -> SQLValue {
        sqlite3_column_count(handle) > 0 ? value(at: 0) : .null
    }

    /// The select list's column names (the `AS` name where there is one), in order.
    public var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    private func value(at column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}

/// A row whose values are read by column name, as the select list names them. There is no
/// reading by position: a column added to or moved in a select list cannot shift what the
/// code reads.
public struct NamedRow {
    private let values: [SQLValue]
    private let names: [String]

    fileprivate init(values: [SQLValue], names: [String]) {
        self.values = values
        self.names = names
    }

    /// The value of the column called `name`. A name the select list does not have is a
    /// programming error, found by the first test that runs the query.
    public subscript(_ name: String) -> SQLValue {
        guard let index = names.firstIndex(of: name) else { preconditionFailure("no column named \(name) in the query") }
        return values[index]
    }
}

/// A select list and how to read its rows back, kept together: a query cannot select one list
/// and read another, and a column added or moved is read by its name, never by a position.
public struct RowDecoder<Value>: Sendable {
    /// The columns to select, each with the name `decode` reads it by (`expr AS name`).
    public let columns: String
    let decode: @Sendable (NamedRow) -> Value

    public init(columns: String, decode: @escaping @Sendable (NamedRow) -> Value) {
        self.columns = columns
        self.decode = decode
    }
}
