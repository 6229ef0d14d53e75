import FoundationEssentials
import ReveilleCore

/// A row of `reminder`. Conversions to and from the core's `Reminder` live here.
struct ReminderRecord {
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
    var person: String?
    var withAlarms: Bool

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        text = try row.text("text")
        time = try row.int("time")
        days = try row.int("days")
        date = try row.optionalText("date")
        enabled = try row.bool("enabled")
        sound = try row.optionalText("sound")
        followUps = try row.text("followUps")
        unless = try row.optionalText("unless")
        body = try row.optionalText("body")
        person = try row.optionalText("person")
        withAlarms = try row.bool("withAlarms")
    }

    /// Every column but the id.
    var columns: [(String, any SQLArgument)] {
        [
            ("text", text), ("time", time), ("days", days), ("date", date), ("enabled", enabled), ("sound", sound),
            ("followUps", followUps), ("unless", unless), ("body", body), ("person", person),
            ("withAlarms", withAlarms),
        ]
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
        person = reminder.person
        withAlarms = reminder.withAlarms
    }

    func reminder() throws -> Reminder {
        guard let id, let localTime = LocalTime(secondsOfDay: time) else {
            throw StoreError.corrupt("reminder row \(id ?? 0) has time \(time)")
        }
        let repeats = try Repeat(days: days, date: date)
        return Reminder(
            id: Int(id), text: text, time: localTime, repeats: repeats, enabled: enabled, sound: sound,
            followUps: (try? JSONDecoder().decode([FollowUp].self, from: Data(followUps.utf8))) ?? [], unless: unless,
            body: body, person: person, withAlarms: withAlarms)
    }
}

/// A chime that came due: played, skipped or missed. Its key is what keeps it from playing twice.
public struct ChimeRecord: Codable, Sendable, Equatable {
    public var key: String
    /// When it was due.
    public var instant: Int
    public var text: String
    public var origin: String
    /// played, skipped, missed.
    public var outcome: String
    /// When that was decided.
    public var at: Int

    init(row: SQLRow) throws {
        key = try row.text("key")
        instant = try row.int("instant")
        text = try row.text("text")
        origin = try row.text("origin")
        outcome = try row.text("outcome")
        at = try row.int("at")
    }
}

extension Store {
    static func addReminderMigration(_ migrations: inout Migrations) {
        migrations.add("v10: reminders") { db in
            // Reminder calendars get minutes before each event, and a sound for some of them.
            try db.execute(
                """
                CREATE TABLE "reminder" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT NOT NULL,
                  "time" INTEGER NOT NULL, "days" INTEGER NOT NULL DEFAULT 0, "date" TEXT,
                  "enabled" BOOLEAN NOT NULL DEFAULT 1, "sound" TEXT, "followUps" TEXT NOT NULL DEFAULT '[]',
                  "unless" TEXT);
                CREATE TABLE "chime" ("key" TEXT PRIMARY KEY NOT NULL, "instant" INTEGER NOT NULL, "text" TEXT NOT NULL,
                  "origin" TEXT NOT NULL, "outcome" TEXT NOT NULL, "at" INTEGER NOT NULL);
                CREATE INDEX "chime_on_instant" ON "chime"("instant");
                ALTER TABLE "calendar" ADD COLUMN "minutes" TEXT NOT NULL DEFAULT '';
                ALTER TABLE "calendar" ADD COLUMN "sounds" TEXT NOT NULL DEFAULT '{}';
                """)
        }
    }

    static func addReminderBodyMigration(_ migrations: inout Migrations) {
        migrations.add("v11: a reminder's body") { db in
            try db.execute(#"ALTER TABLE "reminder" ADD COLUMN "body" TEXT"#)
        }
    }

    public func reminders() throws -> [Reminder] {
        try db.read { db in
            try db.rows("SELECT * FROM reminder ORDER BY id").map { try ReminderRecord(row: $0).reminder() }
        }
    }

    public func reminder(id: Int) throws -> Reminder? {
        try db.read { db in
            try db.row("SELECT * FROM reminder WHERE id = ?", id).map { try ReminderRecord(row: $0).reminder() }
        }
    }

    public func insert(_ reminder: Reminder) throws -> Reminder {
        try write { db in
            var record = ReminderRecord(reminder)
            record.id = try db.insert(into: "reminder", record.columns)
            return try record.reminder()
        }
    }

    /// False when no reminder has that id.
    public func update(_ reminder: Reminder) throws -> Bool {
        try write { db in
            try db.update("reminder", where: "id", is: reminder.id, ReminderRecord(reminder).columns)
        }
    }

    /// False when no reminder has that id.
    public func deleteReminder(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "reminder", where: "id", is: id) }
    }

    /// Keeps how a chime ended; a key already kept stays as it was (a chime plays once).
    public func record(chime: Chime, outcome: ChimeOutcome, at: Int) throws {
        try write { db in
            try db.execute(
                """
                INSERT INTO chime(key, instant, text, origin, outcome, at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO NOTHING
                """,
                chime.key, chime.instant, chime.text, chime.origin, outcome.rawValue, at)
            // A year is plenty for 'reminder history'; older rows go.
            try db.execute("DELETE FROM chime WHERE instant < ?", at - 366 * 86_400)
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
            try db.rows("SELECT * FROM chime WHERE instant >= ? ORDER BY instant, key", since).map(
                ChimeRecord.init(row:))
        }
    }

    /// Chimes asked for again ("again in 10 minutes"), still to come or lately due: the machine
    /// plays them as it plays a calendar's.
    public func againChimes(since instant: Int) throws -> [Chime] {
        try db.read { db in
            try db.rows("SELECT chime FROM chime_again WHERE instant >= ? ORDER BY instant", instant).compactMap {
                try JSONDecoder().decode(Chime.self, from: Data(try $0.text("chime").utf8))
            }
        }
    }

    /// Keeps a chime asked for again; those a week past go.
    public func insert(again chime: Chime) throws {
        let text = String(decoding: try JSONEncoder().encode(chime), as: UTF8.self)
        try write { db in
            try db.execute(
                "INSERT INTO chime_again(key, instant, chime) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING", chime.key,
                chime.instant, text)
            try db.execute("DELETE FROM chime_again WHERE instant < ?", chime.instant - Chime.againKeptSeconds)
        }
    }
}
