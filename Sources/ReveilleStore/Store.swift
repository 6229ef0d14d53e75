import FoundationEssentials
import Glibc
import ReveilleCore
import Synchronization

/// What went wrong with the state database.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String

    static func corrupt(_ what: String) -> StoreError {
        StoreError(description: "state database holds an unreadable \(what); restore a backup or remove the file")
    }
}

/// The daemon's state in SQLite (docs/guide/files.md, "Where files live"): alarms, weekly rules, date overrides, the master switch.
///
/// Every change is one transaction, so a power cut leaves either the old state or the new one.
/// Thread-safe: `DatabaseQueue` serializes access to the one connection.
public final class Store: Sendable {
    let db: DatabaseQueue
    /// The space held back for a write on a full disk (`StateFiles`); nil in memory.
    let reserve: StateFiles.Layout?
    /// What went wrong with the last write, while it stays wrong (a full disk), for `status`.
    private let writeProblem = Mutex<String?>(nil)

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        reserve = StateFiles.Layout(database: path)
        let connection = try SQLiteConnection(path: path)
        // WAL survives power cuts with synchronous=FULL and keeps readers off the writer's back.
        try connection.execute(
            "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL"
        )
        db = DatabaseQueue(connection)
        try Store.migrations.apply(to: db)
    }

    /// An in-memory store, for tests.
    public init() throws {
        reserve = nil
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("PRAGMA foreign_keys = ON")
        db = DatabaseQueue(connection)
        try Store.migrations.apply(to: db)
    }

    /// The schema as each version left it, in the order the versions came (v6 and v7 before v5),
    /// with the names each was recorded under.
    static var migrations: Migrations {
        var migrations = Migrations()
        migrations.add("v1: alarms, rules, overrides, settings") { db in
            try db.execute(
                """
                CREATE TABLE "alarm" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "label" TEXT NOT NULL DEFAULT '',
                  "time" INTEGER NOT NULL, "days" INTEGER NOT NULL DEFAULT 0, "date" TEXT,
                  "enabled" BOOLEAN NOT NULL DEFAULT 1, "sound" TEXT, "volume" INTEGER NOT NULL,
                  "fadeInSeconds" INTEGER NOT NULL, "challenge" TEXT NOT NULL, "mathDifficulty" TEXT NOT NULL,
                  "tags" TEXT NOT NULL DEFAULT '[]', "maxSnoozes" INTEGER NOT NULL, "snoozeMinutes" INTEGER NOT NULL,
                  "skipHolidays" BOOLEAN NOT NULL DEFAULT 0);
                CREATE TABLE "weekly_rule" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "alarmId" INTEGER REFERENCES "alarm"("id") ON DELETE CASCADE, "days" INTEGER NOT NULL,
                  "change" TEXT NOT NULL);
                CREATE TABLE "date_override" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
                  "alarmId" INTEGER REFERENCES "alarm"("id") ON DELETE CASCADE, "date" TEXT NOT NULL,
                  "change" TEXT NOT NULL);
                CREATE INDEX "date_override_on_date" ON "date_override"("date");
                CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
                """)
        }
        addSessionMigrations(&migrations)
        addTagMigrations(&migrations)
        addAppMigrations(&migrations)
        addSessionDetailMigration(&migrations)
        addWebDeviceMigration(&migrations)
        addCalendarMigration(&migrations)
        addReminderMigration(&migrations)
        addReminderBodyMigration(&migrations)
        addAppSetupMigration(&migrations)
        migrations.add("v13: a wake-up check, escalation, a sunrise and a commitment per alarm") { db in
            try db.execute(
                """
                ALTER TABLE "alarm" ADD COLUMN "wakeCheckSeconds" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "alarm" ADD COLUMN "escalateAfterSeconds" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "alarm" ADD COLUMN "leadSeconds" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "alarm" ADD COLUMN "commitSeconds" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "alarm" ADD COLUMN "leadSound" BOOLEAN NOT NULL DEFAULT 0;
                """)
        }
        migrations.add("v14: snoozes that grow shorter") { db in
            try db.execute(#"ALTER TABLE "alarm" ADD COLUMN "laterSnoozeMinutes" TEXT NOT NULL DEFAULT ''"#)
        }
        // From here each alarm setting (`Alarm.settings`) brings its own column, with its default:
        // a new setting needs no step written by hand. Those above already have theirs.
        for setting in Alarm.settings {
            migrations.add("setting: \(setting.key)") { db in
                let columns = try db.rows(#"PRAGMA table_info("alarm")"#).map { try $0.text("name") }
                guard !columns.contains(setting.key) else { return }
                try db.execute(
                    #"ALTER TABLE "alarm" ADD COLUMN "\#(setting.key)" \#(AlarmRecord.columnType(setting.defaultValue)) NOT NULL DEFAULT \#(AlarmRecord.literal(setting.defaultValue))"#
                )
            }
        }
        migrations.add("v15: rules and overrides ring on their own") { db in
            try Store.setSetting(db, Store.layersAloneKey, "pending")
        }
        migrations.add("v16: which events of a holiday calendar are holidays") { db in
            try db.execute(
                """
                ALTER TABLE "calendar" ADD COLUMN "holidayOnly" TEXT NOT NULL DEFAULT '';
                ALTER TABLE "calendar" ADD COLUMN "holidayExcept" TEXT NOT NULL DEFAULT '';
                ALTER TABLE "calendar" ADD COLUMN "holidayTimed" BOOLEAN NOT NULL DEFAULT 0;
                """)
        }
        migrations.add("v17: reminders for a person, chimes again") { db in
            try db.execute(
                """
                ALTER TABLE "reminder" ADD COLUMN "person" TEXT;
                ALTER TABLE "calendar" ADD COLUMN "person" TEXT;
                CREATE TABLE "chime_again" ("key" TEXT PRIMARY KEY NOT NULL, "instant" INTEGER NOT NULL,
                  "chime" TEXT NOT NULL);
                """)
        }
        migrations.add("v18: a grant that opens an app now") { db in
            try db.execute(#"ALTER TABLE "app_grant" ADD COLUMN "open_until" INTEGER"#)
        }
        addHeldRingMigration(&migrations)
        migrations.add("v20: a reminder silent with the alarms, or not") { db in
            // Until now every reminder went silent on a day an override turned the alarms off; from
            // now on only one that says so (a household turns off a wake-up, not the day's reminders).
            try db.execute(#"ALTER TABLE "reminder" ADD COLUMN "withAlarms" BOOLEAN NOT NULL DEFAULT 0"#)
        }
        migrations.add("v21: a browser paired for a child") { db in
            // The person a phone speaks for (`web pair --for`): its apps, its minutes, its asks.
            try db.execute(#"ALTER TABLE "web_device" ADD COLUMN "person" TEXT"#)
        }
        return migrations
    }

    private static let layersAloneKey = "layers_ring_alone"

    /// What was said about the rules and overrides that began to ring on their own with the
    /// upgrade that made them (`LayerConflicts.ringingAlone`): `pending` until the daemon's first
    /// start after it looked, then the date it looked and what it found, one per line.
    public func layersAloneNotice() throws -> String? {
        try db.read { db in try Store.setting(db, Store.layersAloneKey) }
    }

    public func setLayersAloneNotice(_ value: String) throws {
        try write { db in try Store.setSetting(db, Store.layersAloneKey, value) }
    }

    /// One write transaction. When SQLite finds the disk full, the reserve beside the database is
    /// given up and the write tried once more: a dismissal is recorded even then. What stays
    /// wrong is kept for `status` until a write goes through.
    ///
    /// Every write that went through is checkpointed at once (README, "When the state is
    /// damaged"): the write-ahead log is emptied into the main file before the write is answered,
    /// so that a log lost or cut after a crash (kill -9, a power cut, a file deleted by hand)
    /// loses nothing that was acknowledged. A clock writes a few times a day: the cost is
    /// measured in BENCHMARKS.md. A checkpoint that fails (a full disk) is said in `status`.
    func write<T>(_ updates: (SQLiteConnection) throws -> T) throws -> T {
        do {
            let result = try db.write(updates)
            if reserve.map({ access($0.reserve, F_OK) == 0 }) ?? true { writeProblem.withLock { $0 = nil } }
            checkpointAfterWrite()
            return result
        } catch let error as SQLiteError where error.isDiskFull {
            guard let reserve, StateFiles.releaseReserve(reserve) else {
                writeProblem.withLock {
                    $0 = "the disk is full: \(error.message); changes are not saved"
                }
                throw error
            }
            writeProblem.withLock {
                $0 = "the disk is full; the space held in reserve was used to save the last change. Free some space"
            }
            let result = try db.write(updates)
            checkpointAfterWrite()
            return result
        } catch {
            writeProblem.withLock { $0 = "cannot save: \(error)" }
            throw error
        }
    }

    /// The log into the main file, after a write (a file-backed store only).
    private func checkpointAfterWrite() {
        guard reserve != nil else { return }
        do {
            try checkpoint()
        } catch {
            writeProblem.withLock {
                $0 =
                    $0
                    ?? "the last change is saved in the write-ahead log but could not be moved into the database (\(error)); a lost log would lose it. Free some space"
            }
        }
    }

    /// Why changes may not be saved now, if they may not.
    public var problem: String? { writeProblem.withLock { $0 } }

    /// Something the state's care could not do, for `status`.
    func noteProblem(_ problem: String) { writeProblem.withLock { $0 = $0 ?? problem } }

    /// After maintenance found room again.
    func clearProblem() { writeProblem.withLock { $0 = nil } }

    // MARK: Reading

    /// Everything the schedule engine needs (holidays come from calendars, not from here).
    public func scheduleState() throws -> ScheduleState {
        try db.read { db in
            ScheduleState(
                alarms: try db.rows("SELECT * FROM alarm ORDER BY id").map { try AlarmRecord(row: $0).alarm() },
                rules: try Store.rules(db),
                overrides: try db.rows("SELECT * FROM date_override ORDER BY date, id").map {
                    try OverrideRecord(row: $0).override()
                },
                master: try Store.master(db),
                reminders: try db.rows("SELECT * FROM reminder ORDER BY id").map {
                    try ReminderRecord(row: $0).reminder()
                },
                remindersOn: try Store.remindersOn(db),
                heldAgainstHolidays: try Store.heldRings(db))
        }
    }

    public func alarm(id: Int) throws -> Alarm? {
        try db.read { db in try db.row("SELECT * FROM alarm WHERE id = ?", id).map { try AlarmRecord(row: $0).alarm() }
        }
    }

    // MARK: Alarms

    /// Stores a new alarm and returns it with its id.
    public func insert(_ alarm: Alarm) throws -> Alarm {
        try write { db in
            var record = AlarmRecord(alarm)
            record.id = try db.insert(into: "alarm", record.columns)
            return try record.alarm()
        }
    }

    /// Replaces the alarm with the same id; false when there is none.
    public func update(_ alarm: Alarm) throws -> Bool {
        try write { db in try db.update("alarm", where: "id", is: alarm.id, AlarmRecord(alarm).columns) }
    }

    /// Turns off the enabled one-shots whose day is before `today` (their day is over: they rang,
    /// were missed or were silenced); returns them as they were.
    public func disableOneShots(before today: CivilDate) throws -> [Alarm] {
        try write { db in
            let stale = try db.rows(
                "SELECT * FROM alarm WHERE days = 0 AND enabled = 1 AND date < ? ORDER BY id", today.description
            ).map { try AlarmRecord(row: $0).alarm() }
            for alarm in stale { try db.execute("UPDATE alarm SET enabled = 0 WHERE id = ?", alarm.id) }
            return stale
        }
    }

    /// Removes the alarm and the rules and overrides that name it; false when there is none.
    public func deleteAlarm(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "alarm", where: "id", is: id) }
    }

    // MARK: Rules and overrides

    private static func rules(_ db: SQLiteConnection) throws -> [WeeklyRule] {
        try db.rows("SELECT * FROM weekly_rule ORDER BY id").map { try RuleRecord(row: $0).rule() }
    }

    private static func overrides(_ db: SQLiteConnection) throws -> [DateOverride] {
        try db.rows("SELECT * FROM date_override ORDER BY id").map { try OverrideRecord(row: $0).override() }
    }

    /// Stores a weekly rule unless `check` refuses it against the rules already there (one transaction).
    public func insertRule(_ rule: WeeklyRule, check: ([WeeklyRule]) throws -> Void) throws -> WeeklyRule {
        try write { db in
            try check(try Store.rules(db))
            var record = RuleRecord(rule)
            record.id = try db.insert(into: "weekly_rule", record.columns)
            return try record.rule()
        }
    }

    /// Changes rule `id` through `change`, which also sees the other rules to check against, in
    /// one transaction; nil when there is no such rule.
    public func updateRule(id: Int, _ change: (inout WeeklyRule, [WeeklyRule]) throws -> Void) throws -> WeeklyRule? {
        try write { db in
            guard let row = try db.row("SELECT * FROM weekly_rule WHERE id = ?", id) else { return nil }
            var rule = try RuleRecord(row: row).rule()
            try change(&rule, try Store.rules(db))
            try db.update("weekly_rule", where: "id", is: id, RuleRecord(rule).columns)
            return rule
        }
    }

    /// Changes override `id` as `updateRule` does.
    public func updateOverride(id: Int, _ change: (inout DateOverride, [DateOverride]) throws -> Void) throws
        -> DateOverride?
    {
        try write { db in
            guard let row = try db.row("SELECT * FROM date_override WHERE id = ?", id) else { return nil }
            var override = try OverrideRecord(row: row).override()
            try change(&override, try Store.overrides(db))
            try db.update("date_override", where: "id", is: id, OverrideRecord(override).columns)
            return override
        }
    }

    public func deleteRule(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "weekly_rule", where: "id", is: id) }
    }

    /// Stores a date override unless `check` refuses it against the overrides already there (one transaction).
    public func insertOverride(_ override: DateOverride, check: ([DateOverride]) throws -> Void) throws -> DateOverride
    {
        try write { db in
            try check(try Store.overrides(db))
            var record = OverrideRecord(override)
            record.id = try db.insert(into: "date_override", record.columns)
            return try record.override()
        }
    }

    public func deleteOverride(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "date_override", where: "id", is: id) }
    }

    /// Removes overrides dated before `today`; returns how many.
    @discardableResult
    public func purgeOverrides(before today: CivilDate) throws -> Int {
        try write { db in
            try db.execute("DELETE FROM date_override WHERE date < ?", today.description)
            return db.changes
        }
    }

    // MARK: Master switch

    public func setMaster(_ master: MasterSwitch) throws {
        let value: String
        switch master {
        case .on: value = "on"
        case .off: value = "off"
        case .pausedUntil(let date): value = date.description
        }
        try write { db in try Store.setSetting(db, "master", value) }
    }

    /// The switch for every reminder: on unless set off.
    public func setReminders(on: Bool) throws {
        try write { db in try Store.setSetting(db, "reminders", on ? "on" : "off") }
    }

    private static func remindersOn(_ db: SQLiteConnection) throws -> Bool {
        switch try setting(db, "reminders") {
        case nil, "on": return true
        case "off": return false
        case let value?: throw StoreError.corrupt("reminders setting (\"\(value)\", not on or off)")
        }
    }

    public func master() throws -> MasterSwitch {
        try db.read { db in try Store.master(db) }
    }

    private static func master(_ db: SQLiteConnection) throws -> MasterSwitch {
        switch try setting(db, "master") {
        case nil, "on": return .on
        case "off": return .off
        case let value?: return .pausedUntil(try CivilDate.parse(value))
        }
    }
}
