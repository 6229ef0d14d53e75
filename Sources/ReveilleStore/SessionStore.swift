import FoundationEssentials
import ReveilleCore

/// A row of `ring_session`: the history, and the session in progress (docs/guide/ringing.md, "When an alarm rings"). The columns are
/// what history and stats query; `detail` holds the whole session, as a `SessionDetail`, to resume
/// it after a restart.
struct SessionRecord {
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

    /// Every column but the id.
    var columns: [(String, any SQLArgument)] {
        [
            ("alarmId", alarmId), ("label", label), ("scheduledAt", scheduledAt), ("startedAt", startedAt),
            ("state", state), ("snoozeCount", snoozeCount), ("wrongAnswers", wrongAnswers), ("endedAt", endedAt),
            ("dismissedBy", dismissedBy), ("fellBackToMath", fellBackToMath), ("detail", detail),
        ]
    }

    /// The session a row holds: its `detail`, numbered by its id.
    static func session(_ row: SQLRow) throws -> RingSession {
        try SessionDetail.decode(try row.text("detail")).session(id: try row.int("id"))
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

    /// The session this record holds, numbered `id` (the row's).
    func session(id: Int64) throws -> RingSession {
        try SessionDetail.decode(detail).session(id: Int(id))
    }
}

extension Store {
    static func addSessionMigrations(_ migrations: inout Migrations) {
        migrations.add("v2: ring sessions") { db in
            // No foreign key: history outlives the alarm it belonged to.
            try db.execute(
                """
                CREATE TABLE "ring_session" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "alarmId" INTEGER NOT NULL,
                  "label" TEXT NOT NULL, "scheduledAt" INTEGER NOT NULL, "startedAt" INTEGER NOT NULL,
                  "state" TEXT NOT NULL, "snoozeCount" INTEGER NOT NULL, "wrongAnswers" INTEGER NOT NULL,
                  "endedAt" INTEGER, "dismissedBy" TEXT, "fellBackToMath" BOOLEAN NOT NULL, "detail" TEXT NOT NULL);
                CREATE INDEX "ring_session_on_scheduledAt" ON "ring_session"("scheduledAt");
                CREATE INDEX "ring_session_on_state" ON "ring_session"("state");
                """)
        }
    }

    static func addSessionDetailMigration(_ migrations: inout Migrations) {
        // Up to v4, `detail` held the core type's own Codable shape: rewrite it as a versioned record.
        migrations.add("v5: session details as versioned records") { db in
            for row in try db.rows("SELECT id, detail FROM ring_session") {
                let text = try row.text("detail")
                guard !SessionDetail.isVersioned(text) else { continue }
                let detail = try SessionDetail(legacy: text)
                try db.execute(
                    "UPDATE ring_session SET detail = ? WHERE id = ?", try detail.encoded(), try row.int("id"))
            }
        }
    }

    /// The highest session id in the history (0 when empty): the clock numbers new sessions after it.
    public func lastSessionID() throws -> Int {
        try db.read { db in try db.int("SELECT MAX(id) FROM ring_session") ?? 0 }
    }

    /// Stores a new session (or missed occurrence) and returns it with its id.
    public func insert(_ session: RingSession) throws -> RingSession {
        try write { db in
            let record = try SessionRecord(session)
            let id = try db.insert(into: "ring_session", record.columns)
            return try record.session(id: id)
        }
    }

    /// Writes the session's current state (every transition is persisted).
    public func update(_ session: RingSession) throws {
        try write { db in
            _ = try db.update("ring_session", where: "id", is: session.id, try SessionRecord(session).columns)
        }
    }

    /// Stores a session together with the instant up to which occurrences are handled, in one
    /// transaction: after a crash, either both are there or neither.
    @discardableResult
    public func record(_ sessions: [RingSession], evaluatedThrough instant: Int?) throws -> [RingSession] {
        try write { db in
            var stored: [RingSession] = []
            for session in sessions {
                let record = try SessionRecord(session)
                var id = Int64(session.id)
                if session.id > 0 {
                    // The clock numbered it: a new row or an update.
                    if try !db.update("ring_session", where: "id", is: id, record.columns) {
                        try db.insert(into: "ring_session", [("id", id)] + record.columns)
                    }
                } else {
                    id = try db.insert(into: "ring_session", record.columns)
                }
                stored.append(try record.session(id: id))
            }
            if let instant { try Store.setSetting(db, "evaluated_through", String(instant)) }
            return stored
        }
    }

    /// Deletes the missed records `ids` (only missed ones: a session that rang is history), in one
    /// transaction.
    public func withdrawMissed(_ ids: [Int]) throws {
        try write { db in
            for id in ids { try db.execute(#"DELETE FROM ring_session WHERE id = ? AND state = 'missed'"#, id) }
        }
    }

    /// The session still ringing or snoozed, if any.
    public func activeSession() throws -> RingSession? {
        try db.read { db in
            try db.row(
                "SELECT id, detail FROM ring_session WHERE state IN (?, ?) ORDER BY id DESC LIMIT 1",
                SessionState.ringing.rawValue, SessionState.snoozed.rawValue
            ).map(SessionRecord.session)
        }
    }

    /// The session dismissed last, when its wake-up check has not been answered or failed yet.
    public func openWakeCheck() throws -> RingSession? {
        try db.read { db in
            try db.row(
                "SELECT id, detail FROM ring_session WHERE state = ? ORDER BY id DESC LIMIT 1",
                SessionState.dismissed.rawValue
            ).map(SessionRecord.session)
        }.flatMap { $0.wakeCheck?.isOpen == true ? $0 : nil }
    }

    /// Sessions and missed occurrences scheduled at or after `since`, oldest first.
    public func history(since: Int) throws -> [RingSession] {
        try db.read { db in
            try db.rows("SELECT id, detail FROM ring_session WHERE scheduledAt >= ? ORDER BY scheduledAt, id", since)
                .map(SessionRecord.session)
        }
    }

    /// The instant up to which due occurrences have been rung or recorded as missed.
    public func evaluatedThrough() throws -> Int? {
        try db.read { db in try Store.setting(db, "evaluated_through").flatMap(Int.init) }
    }

    public func setEvaluatedThrough(_ instant: Int) throws {
        try write { db in try Store.setSetting(db, "evaluated_through", String(instant)) }
    }

    static func setting(_ db: SQLiteConnection, _ key: String) throws -> String? {
        try db.row("SELECT value FROM setting WHERE key = ?", key).map { try $0.text("value") }
    }

    static func setSetting(_ db: SQLiteConnection, _ key: String, _ value: String) throws {
        try db.execute(
            "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            key, value)
    }
}
