/// A browser paired with `reveille web pair`: its name, its rights, and the SHA-256 of its token
/// (the token itself is never stored).
public struct PairedDevice: Codable, Sendable, Equatable {
    public var id: Int64?
    public var name: String
    /// `user` or `admin`.
    public var role: String
    public var tokenHash: String
    public var pairedAt: Int
    /// The login name of the child this browser is paired for (`web pair --for`): it is served
    /// as that person, for their own apps only; nil for a household's browser.
    public var person: String?

    public init(name: String, role: String, tokenHash: String, pairedAt: Int, person: String? = nil) {
        self.name = name
        self.role = role
        self.tokenHash = tokenHash
        self.pairedAt = pairedAt
        self.person = person
    }

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        name = try row.text("name")
        role = try row.text("role")
        tokenHash = try row.text("tokenHash")
        pairedAt = try row.int("pairedAt")
        person = try row.optionalText("person")
    }
}

extension Store {
    static func addWebDeviceMigration(_ migrations: inout Migrations) {
        migrations.add("v8: paired web devices") { db in
            try db.execute(
                """
                CREATE TABLE "web_device" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL,
                  "role" TEXT NOT NULL, "tokenHash" TEXT NOT NULL UNIQUE, "pairedAt" INTEGER NOT NULL)
                """)
        }
    }

    public func insert(_ device: PairedDevice) throws -> PairedDevice {
        try write { db in
            var device = device
            device.id = try db.insert(
                into: "web_device",
                [
                    ("name", device.name), ("role", device.role), ("tokenHash", device.tokenHash),
                    ("pairedAt", device.pairedAt), ("person", device.person),
                ])
            return device
        }
    }

    public func pairedDevices() throws -> [PairedDevice] {
        try db.read { db in try db.rows("SELECT * FROM web_device ORDER BY id").map(PairedDevice.init(row:)) }
    }

    /// False when no device has that id.
    public func deletePairedDevice(id: Int) throws -> Bool {
        try write { db in try db.delete(from: "web_device", where: "id", is: id) }
    }
}
