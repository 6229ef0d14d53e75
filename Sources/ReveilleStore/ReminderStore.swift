import Foundation
import GRDB
import ReveilleCore

/// A row of `reminder`. Conversions to and from the core's `Reminder` live here.
struct ReminderRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "reminder"

    var id: Int64?
    var text: String
    /// Seconds since local midnight.
    var time: Int
    /// Weekday bit mask for a repeating reminder; 0 for a one-time one.
    var days: Int
    /// `YYYY-MM-DD` for a one-time reminder.
    var date: String?
    var enabled: Bool
    var sound: String?
    /// JSON array of `{"afterSeconds": 7200, "text": "how did it go?"}`.
    var followUps: String
    var unless: String?
    /// The line under the title; nil when there is none.
    var body: String?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    init(_ reminder: Reminder) {
        id = reminder.id > 0 ? Int64(reminder.id) : nil
        text = reminder.text
        time = reminder.time.secondsOfDay
        (days, date) = reminder.repeats.columns
        enabled = reminder.enabled
        sound = reminder.sound
        followUps = String(decoding: (try? JSONEncoder().encode(reminder.followUps)) ?? Data("[]".utf8), as: UTF8.self)
        unless = reminder.unless
        body = reminder.body
    }

    func reminder() throws -> Reminder {
        guard let id, let localTime = LocalTime(secondsOfDay: time) else {
            throw StoreError.corrupt("reminder row \(id ?? 0) has time \(time)")
        }
        let repeats = try Repeat(days: days, date: date)
        return Reminder(
            id: Int(id), text: text, time: localTime, repeats: repeats, enabled: enabled, sound: sound,
            followUps: (try? JSONDecoder().decode([FollowUp].self, from: Data(followUps.utf8))) ?? [], unless: unless,
            body: body)
    }
}

/// A chime that came due: played, skipped or missed. Its key is what keeps it from playing twice.
public struct ChimeRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "chime"

    public var key: String
    /// When it was due.
    public var instant: Int
    public var text: String
    public var origin: String
    /// played, skipped, missed.
    public var outcome: String
    /// When that was decided.
    public var at: Int
}

extension Store {
    static func registerReminderMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10: reminders") { db in
            try db.create(table: "reminder") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("text", .text).notNull()
                t.column("time", .integer).notNull()
                t.column("days", .integer).notNull().defaults(to: 0)
                t.column("date", .text)
                t.column("enabled", .boolean).notNull().defaults(to: true)
                t.column("sound", .text)
                t.column("followUps", .text).notNull().defaults(to: "[]")
                t.column("unless", .text)
            }
            try db.create(table: "chime") { t in
                t.primaryKey("key", .text)
                t.column("instant", .integer).notNull().indexed()
                t.column("text", .text).notNull()
                t.column("origin", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("at", .integer).notNull()
            }
            // Reminder calendars: minutes before each event, and a sound for some of them.
            try db.alter(table: "calendar") { t in
                t.add(column: "minutes", .text).notNull().defaults(to: "")
                t.add(column: "sounds", .text).notNull().defaults(to: "{}")
            }
        }
    }

    static func registerReminderBodyMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11: a reminder's body") { db in
            try db.alter(table: "reminder") { t in t.add(column: "body", .text) }
        }
    }

    public func reminders() throws -> [Reminder] {
        try db.read { db in try ReminderRecord.order(Column("id")).fetchAll(db).map { try $0.reminder() } }
    }

    public func reminder(id: Int) throws -> Reminder? {
        try db.read { db in try ReminderRecord.fetchOne(db, key: id)?.reminder() }
    }

    public func insert(_ reminder: Reminder) throws -> Reminder {
        try write { db in
            var record = ReminderRecord(reminder)
            record.id = nil
            try record.insert(db)
            return try record.reminder()
        }
    }

    /// False when no reminder has that id.
    public func update(_ reminder: Reminder) throws -> Bool {
        try write { db in
            let record = ReminderRecord(reminder)
            guard try ReminderRecord.exists(db, key: reminder.id) else { return false }
            try record.update(db)
            return true
        }
    }

    /// False when no reminder has that id.
    public func deleteReminder(id: Int) throws -> Bool {
        try write { db in try ReminderRecord.deleteOne(db, key: id) }
    }

    /// Keeps how a chime ended; a key already kept stays as it was (a chime plays once).
    public func record(chime: Chime, outcome: ChimeOutcome, at: Int) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO chime(key, instant, text, origin, outcome, at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO NOTHING
                    """,
                arguments: [chime.key, chime.instant, chime.text, chime.origin, outcome.rawValue, at])
            // A year is plenty for 'reminder history'; older rows go.
            try db.execute(sql: "DELETE FROM chime WHERE instant < ?", arguments: [at - 366 * 86_400])
        }
    }

    /// Chimes due since `since`, oldest first.
    /// The keys of the chimes that came due in the 8 days before `now`: what `next` and
    /// `calendar list` leave out as played, even when their event moved later. Empty when the
    /// store cannot be read (a read model, never a reason to refuse).
    public func recentChimeKeys(before now: Int) -> Set<String> {
        Set(((try? chimes(since: now - 8 * 86_400)) ?? []).map(\.key))
    }

    public func chimes(since: Int) throws -> [ChimeRecord] {
        try db.read { db in
            try ChimeRecord.filter(Column("instant") >= since).order(Column("instant"), Column("key")).fetchAll(db)
        }
    }
}
