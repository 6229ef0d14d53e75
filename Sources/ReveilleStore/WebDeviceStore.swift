import GRDB

/// A browser paired with `reveille web pair`: its name, its rights, and the SHA-256 of its token
/// (the token itself is never stored).
public struct PairedDevice: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "web_device"

    public var id: Int64?
    public var name: String
    /// `user` or `admin`.
    public var role: String
    public var tokenHash: String
    public var pairedAt: Int

    public init(name: String, role: String, tokenHash: String, pairedAt: Int) {
        self.name = name
        self.role = role
        self.tokenHash = tokenHash
        self.pairedAt = pairedAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Store {
    static func registerWebDeviceMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8: paired web devices") { db in
            try db.create(table: "web_device") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("role", .text).notNull()
                t.column("tokenHash", .text).notNull().unique()
                t.column("pairedAt", .integer).notNull()
            }
        }
    }

    public func insert(_ device: PairedDevice) throws -> PairedDevice {
        try write { db in
            var device = device
            try device.insert(db)
            return device
        }
    }

    public func pairedDevices() throws -> [PairedDevice] {
        try db.read { db in try PairedDevice.order(Column("id")).fetchAll(db) }
    }

    /// False when no device has that id.
    public func deletePairedDevice(id: Int) throws -> Bool {
        try write { db in try PairedDevice.deleteOne(db, key: id) }
    }
}
