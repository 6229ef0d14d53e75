import Foundation
import GRDB
import ReveilleCore

/// A calendar the daemon reads: its name, where it lives and what it is for.
public struct CalendarRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "calendar"

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

    public init(
        name: String, source: String, purpose: CalendarPurpose, addedAt: Int, minutes: [Int] = [], sounds: [Int: String] = [:]
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

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Store {
    static func registerCalendarMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9: calendars") { db in
            try db.create(table: "calendar") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
                t.column("source", .text).notNull()
                t.column("purpose", .text).notNull()
                t.column("addedAt", .integer).notNull()
            }
        }
    }

    public func insert(_ calendar: CalendarRecord) throws -> CalendarRecord {
        try write { db in
            var calendar = calendar
            try calendar.insert(db)
            return calendar
        }
    }

    public func calendars() throws -> [CalendarRecord] {
        try db.read { db in try CalendarRecord.order(Column("id")).fetchAll(db) }
    }

    /// False when no calendar has that id.
    public func deleteCalendar(id: Int) throws -> Bool {
        try write { db in try CalendarRecord.deleteOne(db, key: id) }
    }
}
