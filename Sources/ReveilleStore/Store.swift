import Foundation
import GRDB
import ReveilleCore
import Synchronization

/// What went wrong with the state database.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String

    static func corrupt(_ what: String) -> StoreError {
        StoreError(description: "state database holds an unreadable \(what); restore a backup or remove the file")
    }
}

/// The daemon's state in SQLite (README, "Where files live"): alarms, weekly rules, date overrides, the master switch.
///
/// Every change is one transaction, so a power cut leaves either the old state or the new one.
/// Thread-safe: GRDB's `DatabaseQueue` serializes access.
public final class Store: Sendable {
    let db: DatabaseQueue
    /// The space held back for a write on a full disk (`StateFiles`); nil in memory.
    let reserve: StateFiles.Layout?
    /// What went wrong with the last write, while it stays wrong (a full disk), for `status`.
    private let writeProblem = Mutex<String?>(nil)

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        reserve = StateFiles.Layout(database: path)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL survives power cuts with synchronous=FULL and keeps readers off the writer's back.
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        }
        db = try DatabaseQueue(path: path, configuration: configuration)
        try Store.migrator.migrate(db)
    }

    /// An in-memory store, for tests.
    public init() throws {
        reserve = nil
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        db = try DatabaseQueue(configuration: configuration)
        try Store.migrator.migrate(db)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: alarms, rules, overrides, settings") { db in
            try db.create(table: "alarm") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull().defaults(to: "")
                t.column("time", .integer).notNull()
                t.column("days", .integer).notNull().defaults(to: 0)
                t.column("date", .text)
                t.column("enabled", .boolean).notNull().defaults(to: true)
                t.column("sound", .text)
                t.column("volume", .integer).notNull()
                t.column("fadeInSeconds", .integer).notNull()
                t.column("challenge", .text).notNull()
                t.column("mathDifficulty", .text).notNull()
                t.column("tags", .text).notNull().defaults(to: "[]")
                t.column("maxSnoozes", .integer).notNull()
                t.column("snoozeMinutes", .integer).notNull()
                t.column("skipHolidays", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "weekly_rule") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("alarmId", .integer).references("alarm", onDelete: .cascade)
                t.column("days", .integer).notNull()
                t.column("change", .text).notNull()
            }
            try db.create(table: "date_override") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("alarmId", .integer).references("alarm", onDelete: .cascade)
                t.column("date", .text).notNull().indexed()
                t.column("change", .text).notNull()
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        registerSessionMigrations(&migrator)
        registerTagMigrations(&migrator)
        registerAppMigrations(&migrator)
        registerSessionDetailMigration(&migrator)
        registerWebDeviceMigration(&migrator)
        registerCalendarMigration(&migrator)
        registerReminderMigration(&migrator)
        registerReminderBodyMigration(&migrator)
        return migrator
    }

    /// One write transaction. When SQLite finds the disk full, the reserve beside the database is
    /// given up and the write tried once more: a dismissal is recorded even then. What stays
    /// wrong is kept for `status` until a write goes through.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        do {
            let result = try db.write(updates)
            if reserve.map({ access($0.reserve, F_OK) == 0 }) ?? true { writeProblem.withLock { $0 = nil } }
            return result
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            guard let reserve, StateFiles.releaseReserve(reserve) else {
                writeProblem.withLock {
                    $0 = "the disk is full: \(error.message ?? "SQLITE_FULL"); changes are not saved"
                }
                throw error
            }
            writeProblem.withLock {
                $0 = "the disk is full; the space held in reserve was used to save the last change. Free some space"
            }
            return try db.write(updates)
        } catch {
            writeProblem.withLock { $0 = "cannot save: \(error)" }
            throw error
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
                alarms: try AlarmRecord.order(Column("id")).fetchAll(db).map { try $0.alarm() },
                rules: try RuleRecord.order(Column("id")).fetchAll(db).map { try $0.rule() },
                overrides: try OverrideRecord.order(Column("date"), Column("id")).fetchAll(db).map {
                    try $0.override()
                },
                master: try Store.master(db),
                reminders: try ReminderRecord.order(Column("id")).fetchAll(db).map { try $0.reminder() },
                remindersOn: try Store.remindersOn(db))
        }
    }

    public func alarm(id: Int) throws -> Alarm? {
        try db.read { db in try AlarmRecord.fetchOne(db, key: Int64(id))?.alarm() }
    }

    // MARK: Alarms

    /// Stores a new alarm and returns it with its id.
    public func insert(_ alarm: Alarm) throws -> Alarm {
        try write { db in
            var record = AlarmRecord(alarm)
            record.id = nil
            try record.insert(db)
            return try record.alarm()
        }
    }

    /// Replaces the alarm with the same id; false when there is none.
    public func update(_ alarm: Alarm) throws -> Bool {
        try write { db in
            guard try AlarmRecord.exists(db, key: Int64(alarm.id)) else { return false }
            try AlarmRecord(alarm).update(db)
            return true
        }
    }

    /// Turns off the enabled one-shots whose day is before `today` (their day is over: they rang,
    /// were missed or were silenced); returns them as they were.
    public func disableOneShots(before today: CivilDate) throws -> [Alarm] {
        try write { db in
            let stale = try AlarmRecord.filter(Column("days") == 0 && Column("enabled") == true)
                .filter(Column("date") < today.description).fetchAll(db)
            for var record in stale {
                record.enabled = false
                try record.update(db)
            }
            return try stale.map { try $0.alarm() }
        }
    }

    /// Removes the alarm and the rules and overrides that name it; false when there is none.
    public func deleteAlarm(id: Int) throws -> Bool {
        try write { db in try AlarmRecord.deleteOne(db, key: Int64(id)) }
    }

    // MARK: Rules and overrides

    /// Stores a weekly rule unless `check` refuses it against the rules already there (one transaction).
    public func insertRule(_ rule: WeeklyRule, check: ([WeeklyRule]) throws -> Void) throws -> WeeklyRule {
        try write { db in
            try check(try RuleRecord.fetchAll(db).map { try $0.rule() })
            var record = RuleRecord(rule)
            record.id = nil
            try record.insert(db)
            return try record.rule()
        }
    }

    /// Changes rule `id` through `change`, which also sees the other rules to check against, in
    /// one transaction; nil when there is no such rule.
    public func updateRule(id: Int, _ change: (inout WeeklyRule, [WeeklyRule]) throws -> Void) throws -> WeeklyRule? {
        try write { db in
            guard let record = try RuleRecord.fetchOne(db, key: Int64(id)) else { return nil }
            var rule = try record.rule()
            try change(&rule, try RuleRecord.fetchAll(db).map { try $0.rule() })
            try RuleRecord(rule).update(db)
            return rule
        }
    }

    /// Changes override `id` as `updateRule` does.
    public func updateOverride(id: Int, _ change: (inout DateOverride, [DateOverride]) throws -> Void) throws
        -> DateOverride?
    {
        try write { db in
            guard let record = try OverrideRecord.fetchOne(db, key: Int64(id)) else { return nil }
            var override = try record.override()
            try change(&override, try OverrideRecord.fetchAll(db).map { try $0.override() })
            try OverrideRecord(override).update(db)
            return override
        }
    }

    public func deleteRule(id: Int) throws -> Bool {
        try write { db in try RuleRecord.deleteOne(db, key: Int64(id)) }
    }

    /// Stores a date override unless `check` refuses it against the overrides already there (one transaction).
    public func insertOverride(_ override: DateOverride, check: ([DateOverride]) throws -> Void) throws -> DateOverride
    {
        try write { db in
            try check(try OverrideRecord.fetchAll(db).map { try $0.override() })
            var record = OverrideRecord(override)
            record.id = nil
            try record.insert(db)
            return try record.override()
        }
    }

    public func deleteOverride(id: Int) throws -> Bool {
        try write { db in try OverrideRecord.deleteOne(db, key: Int64(id)) }
    }

    /// Removes overrides dated before `today`; returns how many.
    @discardableResult
    public func purgeOverrides(before today: CivilDate) throws -> Int {
        try write { db in
            try OverrideRecord.filter(Column("date") < today.description).deleteAll(db)
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

    private static func remindersOn(_ db: Database) throws -> Bool {
        switch try setting(db, "reminders") {
        case nil, "on": return true
        case "off": return false
        case let value?: throw StoreError.corrupt("reminders setting (\"\(value)\", not on or off)")
        }
    }

    public func master() throws -> MasterSwitch {
        try db.read { db in try Store.master(db) }
    }

    private static func master(_ db: Database) throws -> MasterSwitch {
        switch try setting(db, "master") {
        case nil, "on": return .on
        case "off": return .off
        case let value?: return .pausedUntil(try CivilDate.parse(value))
        }
    }
}
