import ReveilleCore

/// A row of `tag`.
struct TagRecord {
    var label: String
    var uid: String
    var addedAt: Int

    init(_ tag: Tag) {
        label = tag.label
        uid = tag.uid
        addedAt = tag.addedAt
    }

    var tag: Tag { Tag(label: label, uid: uid, addedAt: addedAt) }

    static func tag(_ row: SQLRow) throws -> Tag {
        Tag(label: try row.text("label"), uid: try row.text("uid"), addedAt: try row.int("addedAt"))
    }
}

/// Why a tag could not be stored.
public enum TagConflict: Error, Sendable, Equatable {
    case label(Tag)
    case uid(Tag)
}

extension Store {
    static func addTagMigrations(_ migrations: inout Migrations) {
        migrations.add("v3: NFC tags") { db in
            try db.execute(
                """
                CREATE TABLE "tag" ("label" TEXT PRIMARY KEY NOT NULL, "uid" TEXT NOT NULL UNIQUE,
                  "addedAt" INTEGER NOT NULL)
                """)
        }
    }

    /// Stores a tag unless its label or UID is taken (checked and inserted in one transaction).
    public func insert(_ tag: Tag) throws -> Result<Tag, TagConflict> {
        try write { db in
            if let existing = try db.row("SELECT * FROM tag WHERE label = ?", tag.label) {
                return .failure(.label(try TagRecord.tag(existing)))
            }
            if let existing = try db.row("SELECT * FROM tag WHERE uid = ?", tag.uid) {
                return .failure(.uid(try TagRecord.tag(existing)))
            }
            let record = TagRecord(tag)
            try db.insert(into: "tag", [("label", record.label), ("uid", record.uid), ("addedAt", record.addedAt)])
            return .success(tag)
        }
    }

    public func tags() throws -> [Tag] {
        try db.read { db in try db.rows("SELECT * FROM tag ORDER BY label").map(TagRecord.tag) }
    }

    public func tag(uid: String) throws -> Tag? {
        try db.read { db in try db.row("SELECT * FROM tag WHERE uid = ?", uid).map(TagRecord.tag) }
    }

    /// Deletes the tag and takes it from the alarms that named it (`Alarm.removingTag`), in one
    /// transaction: a power cut leaves the tag and the alarms as they were, or both changed.
    /// Returns those alarms as they are now; nil when no tag has that label.
    public func deleteTag(label: String) throws -> [Alarm]? {
        try write { db in
            guard try db.delete(from: "tag", where: "label", is: label) else { return nil }
            let named = try db.rows("SELECT * FROM alarm ORDER BY id").map { try AlarmRecord(row: $0).alarm() }.filter {
                $0.tags.contains(label)
            }
            return try named.map { alarm in
                let changed = alarm.removingTag(label)
                _ = try db.update("alarm", where: "id", is: changed.id, AlarmRecord(changed).columns)
                return changed
            }
        }
    }
}
