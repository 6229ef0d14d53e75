import CSQLite
import ReveilleCore
import Synchronization

/// What SQLite refused, with its result code and message.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }
    /// SQLITE_FULL: the disk (or the file-size limit) is full.
    var isDiskFull: Bool { code & 0xff == SQLITE_FULL }
}

/// A value bound to a statement's `?`.
protocol SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Int64: SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

extension Bool: SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
}

extension String: SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // SQLITE_TRANSIENT: SQLite copies the text before this returns.
        sqlite3_bind_text(statement, index, self, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): value.bind(to: statement, at: index)
        case .none: sqlite3_bind_null(statement, index)
        }
    }
}

/// One row of a result, by column name. A value of the wrong kind is a damaged database, said as such.
struct SQLRow {
    enum Value: Equatable {
        case null, integer(Int64), real(Double), text(String)
    }

    let values: [String: Value]

    func int(_ column: String) throws -> Int {
        guard case .integer(let value) = values[column] else { throw mismatch(column, "an integer") }
        return Int(value)
    }

    func optionalInt(_ column: String) throws -> Int? {
        if values[column] == .null { return nil }
        return try int(column)
    }

    func text(_ column: String) throws -> String {
        guard case .text(let value) = values[column] else { throw mismatch(column, "text") }
        return value
    }

    func optionalText(_ column: String) throws -> String? {
        if values[column] == .null { return nil }
        return try text(column)
    }

    func bool(_ column: String) throws -> Bool { try int(column) != 0 }

    private func mismatch(_ column: String, _ kind: String) -> StoreError {
        StoreError.corrupt("\(column) (\(values[column].map { "\($0)" } ?? "no such column"), not \(kind))")
    }
}

/// One connection to SQLite, through its C API: statements prepared, bound, stepped and finalized
/// here, and nowhere else. Not thread-safe by itself: `DatabaseQueue` serializes its use.
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (creating) the database at `path`; `:memory:` for one in memory.
    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError(code: result, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (one statement, or several when there are no arguments).
    func execute(_ sql: String, _ arguments: any SQLArgument...) throws {
        if arguments.isEmpty {
            let result = sqlite3_exec(handle, sql, nil, nil, nil)
            guard result == SQLITE_OK else { throw error(result) }
            return
        }
        _ = try run(sql, bound: arguments)
    }

    /// Every row `sql` returns.
    func rows(_ sql: String, _ arguments: any SQLArgument...) throws -> [SQLRow] {
        try run(sql, bound: arguments)
    }

    /// The first row `sql` returns, if any.
    func row(_ sql: String, _ arguments: any SQLArgument...) throws -> SQLRow? {
        try run(sql, bound: arguments).first
    }

    /// The first column of the first row, as an integer; nil when there is no row or it is NULL.
    func int(_ sql: String, _ arguments: any SQLArgument...) throws -> Int? {
        guard let row = try run(sql, bound: arguments).first, let column = row.values.keys.first else { return nil }
        return try row.optionalInt(column)
    }

    /// The first column of the first row, as text; nil when there is no row or it is NULL.
    func text(_ sql: String, _ arguments: any SQLArgument...) throws -> String? {
        guard let row = try run(sql, bound: arguments).first, let column = row.values.keys.first else { return nil }
        return try row.optionalText(column)
    }

    /// Runs `sql` with `arguments` bound in order.
    func execute(_ sql: String, arguments: [any SQLArgument]) throws {
        _ = try run(sql, bound: arguments)
    }

    /// Inserts a row of `columns` (names written in this module, never taken from a request) into
    /// `table`; returns its rowid.
    @discardableResult
    func insert(into table: String, _ columns: [(String, any SQLArgument)]) throws -> Int64 {
        let names = columns.map { "\"\($0.0)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try execute("INSERT INTO \"\(table)\" (\(names)) VALUES (\(marks))", arguments: columns.map(\.1))
        return lastInsertedID
    }

    /// Sets `columns` of the row of `table` whose `key` column is `value`; false when there is none.
    @discardableResult
    func update(_ table: String, where key: String, is value: any SQLArgument, _ columns: [(String, any SQLArgument)])
        throws -> Bool
    {
        let sets = columns.map { "\"\($0.0)\" = ?" }.joined(separator: ", ")
        try execute("UPDATE \"\(table)\" SET \(sets) WHERE \"\(key)\" = ?", arguments: columns.map(\.1) + [value])
        return changes > 0
    }

    /// Removes the row of `table` whose `key` column is `value`; false when there was none.
    func delete(from table: String, where key: String, is value: any SQLArgument) throws -> Bool {
        try execute("DELETE FROM \"\(table)\" WHERE \"\(key)\" = ?", arguments: [value])
        return changes > 0
    }

    /// The rowid of the last row inserted.
    var lastInsertedID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// How many rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    private func run(_ sql: String, bound arguments: [any SQLArgument]) throws -> [SQLRow] {
        var prepared: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard result == SQLITE_OK, let statement = prepared else { throw error(result) }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            let bound = argument.bind(to: statement, at: Int32(index + 1))
            guard bound == SQLITE_OK else { throw error(bound) }
        }
        let columns = (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
        var rows: [SQLRow] = []
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { return rows }
            guard stepped == SQLITE_ROW else { throw error(stepped) }
            var values: [String: SQLRow.Value] = [:]
            for (index, name) in columns.enumerated() {
                let column = Int32(index)
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values[name] = .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: values[name] = .real(sqlite3_column_double(statement, column))
                case SQLITE_NULL: values[name] = .null
                default:
                    values[name] = .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
                }
            }
            rows.append(SQLRow(values: values))
        }
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// The one connection of a `Store`, used by one thread at a time; every write in a transaction.
final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: `connection` is only ever touched while `lock` is held.
    private let lock = Mutex(())
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) { self.connection = connection }

    /// `body` with the connection, outside any transaction.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock { _ in try body(connection) }
    }

    /// `body` in one transaction (BEGIN IMMEDIATE): committed when it returns, rolled back when it throws.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock { _ in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let result = try body(connection)
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// `body` with the connection and no transaction around it (a backup, a checkpoint).
    func writeWithoutTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try read(body)
    }
}

/// The schema's history, applied in order, each once, in a transaction of its own. The names of
/// those applied are kept in `grdb_migrations`, the table GRDB kept them in when the state was
/// stored through it: a database from before keeps its history and goes on from there.
struct Migrations {
    private var steps: [(name: String, apply: (SQLiteConnection) throws -> Void)] = []

    mutating func add(_ name: String, _ apply: @escaping (SQLiteConnection) throws -> Void) {
        steps.append((name, apply))
    }

    /// Applies the steps not applied yet, in order; with `last`, none after the step of that name (tests).
    func apply(to queue: DatabaseQueue, upTo last: String? = nil) throws {
        let applied = try queue.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            return Set(try db.rows("SELECT identifier FROM grdb_migrations").map { try $0.text("identifier") })
        }
        for step in steps {
            if !applied.contains(step.name) {
                try queue.write { db in
                    try step.apply(db)
                    try db.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", step.name)
                }
            }
            if step.name == last { return }
        }
    }
}
