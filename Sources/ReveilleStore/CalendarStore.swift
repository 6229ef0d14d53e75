import FoundationEssentials
import ReveilleCore

/// A calendar the daemon reads: its name, where it lives and what it is for.
public struct CalendarRecord: Codable, Sendable, Equatable {
    public var id: Int64?
    public var name: String
    /// An iCalendar file's absolute path.
    public var source: String
    /// Stored by name (`holidays`, `reminders`); a row with another is refused when read.
    public var purpose: CalendarPurpose
    public var addedAt: Int
    /// For reminders: minutes before each event, comma-separated (`60,15`).
    public var minutes: String
    /// For reminders: JSON object of a sound file per offset (`{"60": "/path/a.wav"}`).
    public var sounds: String
    /// For holidays: which events are holidays (`HolidayFilter`), as given: `holiday|break`.
    public var holidayOnly = ""
    public var holidayExcept = ""
    public var holidayTimed = false
    /// For reminders: the person its events are for (`Reminder.person`); nil: the household.
    public var person: String?

    /// Which of its events are holidays. Checked when it was added; a row edited by hand into
    /// something that no longer parses is read as every all-day event.
    public var holidayFilter: HolidayFilter {
        (try? HolidayFilter(only: holidayOnly, except: holidayExcept, timed: holidayTimed)) ?? .allDay
    }

    public init(
        name: String, source: String, purpose: CalendarPurpose, addedAt: Int, minutes: [Int] = [],
        sounds: [Int: String] = [:]
    ) {
        self.name = name
        self.source = source
        self.purpose = purpose
        self.addedAt = addedAt
        self.minutes = minutes.map(String.init).joined(separator: ",")
        let byText = Dictionary(uniqueKeysWithValues: sounds.map { (String($0.key), $0.value) })
        self.sounds = String(decoding: (try? JSONEncoder().encode(byText)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Minutes before each event a reminder calendar chimes.
    public var reminderMinutes: [Int] { minutes.split(separator: ",").compactMap { Int($0) } }

    /// The sound for each offset that has one.
    public var reminderSounds: [Int: String] {
        let byText = (try? JSONDecoder().decode([String: String].self, from: Data(sounds.utf8))) ?? [:]
        return Dictionary(uniqueKeysWithValues: byText.compactMap { key, value in Int(key).map { ($0, value) } })
    }

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        name = try row.text("name")
        source = try row.text("source")
        let purpose = try row.text("purpose")
        guard let known = CalendarPurpose(rawValue: purpose) else {
            throw StoreError.corrupt("calendar row \(id ?? 0) has purpose \"\(purpose)\"")
        }
        self.purpose = known
        addedAt = try row.int("addedAt")
        minutes = try row.text("minutes")
        sounds = try row.text("sounds")
        holidayOnly = try row.text("holidayOnly")
        holidayExcept = try row.text("holidayExcept")
        holidayTimed = try row.int("holidayTimed") != 0
        person = try row.optionalText("person")
    }

    var columns: [(String, any SQLArgument)] {
        [
            ("name", name), ("source", source), ("purpose", purpose.rawValue), ("addedAt", addedAt),
            ("minutes", minutes), ("sounds", sounds), ("holidayOnly", holidayOnly), ("holidayExcept", holidayExcept),
            ("holidayTimed", holidayTimed ? 1 : 0), ("person", person),
        ]
    }
}

extension Store {
    static func addCalendarMigration(_ migrations: inout Migrations) {
        migrations.add("v9: calendars") { db in
            try db.execute(
                """
                CREATE TABLE "calendar" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL UNIQUE,
                  "source" TEXT NOT NULL, "purpose" TEXT NOT NULL, "addedAt" INTEGER NOT NULL)
                """)
        }
    }

    public func insert(_ calendar: CalendarRecord) throws -> CalendarRecord {
        try write { db in
            var calendar = calendar
            calendar.id = try db.insert(into: "calendar", calendar.columns)
            return calendar
        }
    }

    public func calendars() throws -> [CalendarRecord] {
        try db.read { db in try db.rows("SELECT * FROM calendar ORDER BY id").map(CalendarRecord.init(row:)) }
    }

    /// False when no calendar has that id.
    public func deleteCalendar(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "calendar", where: "id", is: id) }
    }
}
