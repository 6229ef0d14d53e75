import GRDB
import ReveilleCore

/// A row of `tag`.
struct TagRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tag"

    var label: String
    var uid: String
    var addedAt: Int

    init(_ tag: Tag) {
        label = tag.label
        uid = tag.uid
        addedAt = tag.addedAt
    }

    var tag: Tag { Tag(label: label, uid: uid, addedAt: addedAt) }
}

/// Why a tag could not be stored.
public enum TagConflict: Error, Sendable, Equatable {
    case label(Tag)
    case uid(Tag)
}

extension Store {
    static func registerTagMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: NFC tags") { db in
            try db.create(table: "tag") { t in
                t.primaryKey("label", .text)
                t.column("uid", .text).notNull().unique()
                t.column("addedAt", .integer).notNull()
            }
        }
    }

    /// Stores a tag unless its label or UID is taken (checked and inserted in one transaction).
    public func insert(_ tag: Tag) throws -> Result<Tag, TagConflict> {
        try write { db in
            if let existing = try TagRecord.fetchOne(db, key: tag.label) { return .failure(.label(existing.tag)) }
            if let existing = try TagRecord.filter(Column("uid") == tag.uid).fetchOne(db) {
                return .failure(.uid(existing.tag))
            }
            try TagRecord(tag).insert(db)
            return .success(tag)
        }
    }

    public func tags() throws -> [Tag] {
        try db.read { db in try TagRecord.order(Column("label")).fetchAll(db).map(\.tag) }
    }

    public func tag(uid: String) throws -> Tag? {
        try db.read { db in try TagRecord.filter(Column("uid") == uid).fetchOne(db)?.tag }
    }

    /// False when no tag has that label.
    public func deleteTag(label: String) throws -> Bool {
        try write { db in try TagRecord.deleteOne(db, key: label) }
    }
}
