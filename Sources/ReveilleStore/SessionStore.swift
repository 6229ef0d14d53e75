import Foundation
import GRDB
import ReveilleCore

/// A row of `ring_session`: the history, and the session in progress (README, "When an alarm rings"). The columns are
/// what history and stats query; `detail` holds the whole session, as a `SessionDetail`, to resume
/// it after a restart.
struct SessionRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "ring_session"

    var id: Int64?
    var alarmId: Int64
    var label: String
    var scheduledAt: Int
    var startedAt: Int
    var state: String
    var snoozeCount: Int
    var wrongAnswers: Int
    var endedAt: Int?
    var dismissedBy: String?
    var fellBackToMath: Bool
    var detail: String

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    init(_ session: RingSession) throws {
        id = session.id > 0 ? Int64(session.id) : nil
        alarmId = Int64(session.settings.alarmID)
        label = session.settings.label
        scheduledAt = session.scheduledAt
        startedAt = session.startedAt
        state = session.state.rawValue
        snoozeCount = session.snoozeCount
        wrongAnswers = session.wrongAnswers
        endedAt = session.endedAt
        dismissedBy = session.dismissedBy?.rawValue
        fellBackToMath = session.fellBackToMath
        detail = try SessionDetail(session).encoded()
    }

    func session() throws -> RingSession {
        try SessionDetail.decode(detail).session(id: Int(id ?? 0))
    }
}

extension Store {
    static func registerSessionMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2: ring sessions") { db in
            try db.create(table: "ring_session") { t in
                t.autoIncrementedPrimaryKey("id")
                // No foreign key: history outlives the alarm it belonged to.
                t.column("alarmId", .integer).notNull()
                t.column("label", .text).notNull()
                t.column("scheduledAt", .integer).notNull().indexed()
                t.column("startedAt", .integer).notNull()
                t.column("state", .text).notNull().indexed()
                t.column("snoozeCount", .integer).notNull()
                t.column("wrongAnswers", .integer).notNull()
                t.column("endedAt", .integer)
                t.column("dismissedBy", .text)
                t.column("fellBackToMath", .boolean).notNull()
                t.column("detail", .text).notNull()
            }
        }
    }

    static func registerSessionDetailMigration(_ migrator: inout DatabaseMigrator) {
        // Up to v4, `detail` held the core type's own Codable shape: rewrite it as a versioned record.
        migrator.registerMigration("v5: session details as versioned records") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, detail FROM ring_session")
            for row in rows {
                let id: Int64 = row["id"]
                let text: String = row["detail"]
                guard !SessionDetail.isVersioned(text) else { continue }
                let detail = try SessionDetail(legacy: text)
                try db.execute(
                    sql: "UPDATE ring_session SET detail = ? WHERE id = ?", arguments: [try detail.encoded(), id])
            }
        }
    }

    /// The highest session id in the history (0 when empty): the clock numbers new sessions after it.
    public func lastSessionID() throws -> Int {
        try db.read { db in try Int.fetchOne(db, sql: "SELECT MAX(id) FROM ring_session") ?? 0 }
    }

    /// Stores a new session (or missed occurrence) and returns it with its id.
    public func insert(_ session: RingSession) throws -> RingSession {
        try write { db in
            var record = try SessionRecord(session)
            record.id = nil
            try record.insert(db)
            return try record.session()
        }
    }

    /// Writes the session's current state (every transition is persisted).
    public func update(_ session: RingSession) throws {
        try write { db in try SessionRecord(session).update(db) }
    }

    /// Stores a session together with the instant up to which occurrences are handled, in one
    /// transaction: after a crash, either both are there or neither.
    @discardableResult
    public func record(_ sessions: [RingSession], evaluatedThrough instant: Int?) throws -> [RingSession] {
        try write { db in
            var stored: [RingSession] = []
            for session in sessions {
                var record = try SessionRecord(session)
                if session.id > 0 {
                    try record.save(db)  // the clock numbered it: a new row or an update
                } else {
                    record.id = nil
                    try record.insert(db)
                }
                stored.append(try record.session())
            }
            if let instant { try Store.setSetting(db, "evaluated_through", String(instant)) }
            return stored
        }
    }

    /// The session still ringing or snoozed, if any.
    public func activeSession() throws -> RingSession? {
        try db.read { db in
            try SessionRecord.filter(
                [SessionState.ringing.rawValue, SessionState.snoozed.rawValue].contains(
                    Column("state"))
            ).order(Column("id").desc).fetchOne(db)?.session()
        }
    }

    /// Sessions and missed occurrences scheduled at or after `since`, oldest first.
    public func history(since: Int) throws -> [RingSession] {
        try db.read { db in
            try SessionRecord.filter(Column("scheduledAt") >= since).order(Column("scheduledAt"), Column("id"))
                .fetchAll(db).map { try $0.session() }
        }
    }

    /// The instant up to which due occurrences have been rung or recorded as missed.
    public func evaluatedThrough() throws -> Int? {
        try db.read { db in try Store.setting(db, "evaluated_through").flatMap(Int.init) }
    }

    public func setEvaluatedThrough(_ instant: Int) throws {
        try write { db in try Store.setSetting(db, "evaluated_through", String(instant)) }
    }

    static func setting(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
    }

    static func setSetting(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(
            sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key, value])
    }
}
