import GRDB
import ReveilleCore

/// App usage and grants per local day (README, "App time windows and daily limits"): seconds an app ran for a user, and extra
/// minutes an admin granted for the day.
extension Store {
    static func registerAppMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: app usage and grants") { db in
            try db.create(table: "app_usage") { t in
                t.column("date", .text).notNull()
                t.column("app", .text).notNull()
                t.column("user", .text).notNull()
                t.column("seconds", .integer).notNull()
                t.primaryKey(["date", "app", "user"])
            }
            try db.create(table: "app_grant") { t in
                t.column("date", .text).notNull()
                t.column("app", .text).notNull()
                t.column("minutes", .integer).notNull()
                t.primaryKey(["date", "app"])
            }
        }
        migrator.registerMigration("v6: the last good app policy") { db in
            try db.create(table: "app_policy") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("text", .text).notNull()
                t.column("saved_at", .integer).notNull()
            }
        }
        migrator.registerMigration("v7: app grants per user") { db in
            // '*': every user of the app, which is what each grant before this was.
            try db.create(table: "app_grant_per_user") { t in
                t.column("date", .text).notNull()
                t.column("app", .text).notNull()
                t.column("user", .text).notNull().defaults(to: "*")
                t.column("minutes", .integer).notNull()
                t.primaryKey(["date", "app", "user"])
            }
            try db.execute(
                sql: "INSERT INTO app_grant_per_user (date, app, user, minutes) "
                    + "SELECT date, app, '*', minutes FROM app_grant")
            try db.drop(table: "app_grant")
            try db.rename(table: "app_grant_per_user", to: "app_grant")
        }
    }

    /// Keeps `text`, an apps.toml that loaded, as the policy to enforce when the file does not
    /// load at a later start: a broken file never opens the gates.
    public func saveGoodAppPolicy(_ text: String, at instant: Int) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO app_policy (id, text, saved_at) VALUES (1, ?, ?) "
                    + "ON CONFLICT(id) DO UPDATE SET text = excluded.text, saved_at = excluded.saved_at "
                    + "WHERE text != excluded.text",
                arguments: [text, instant])
        }
    }

    /// The last apps.toml that loaded, and when it was saved (seconds since the epoch).
    public func goodAppPolicy() throws -> (text: String, savedAt: Int)? {
        try db.read { db in
            try Row.fetchOne(db, sql: "SELECT text, saved_at FROM app_policy WHERE id = 1").map {
                ($0["text"], $0["saved_at"])
            }
        }
    }

    /// Seconds used on `date`, by app and user.
    public func appUsage(on date: CivilDate) throws -> [AppUsageKey: Int] {
        try db.read { db in
            var usage: [AppUsageKey: Int] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT app, user, seconds FROM app_usage WHERE date = ?", arguments: [date.description])
            for row in rows { usage[AppUsageKey(app: row["app"], user: row["user"])] = row["seconds"] }
            return usage
        }
    }

    public func setAppUsage(_ seconds: Int, for key: AppUsageKey, on date: CivilDate) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO app_usage (date, app, user, seconds) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(date, app, user) DO UPDATE SET seconds = excluded.seconds",
                arguments: [date.description, key.app, key.user, seconds])
        }
    }

    /// Minutes granted on `date`, by app and user (`*`: every user).
    public func appGrants(on date: CivilDate) throws -> [AppUsageKey: Int] {
        try db.read { db in
            var grants: [AppUsageKey: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT app, user, minutes FROM app_grant WHERE date = ?", arguments: [date.description])
            {
                grants[AppUsageKey(app: row["app"], user: row["user"])] = row["minutes"]
            }
            return grants
        }
    }

    /// Adds `minutes` to the day's grant for `app` and `user` (nil: every user); returns that
    /// grant's new total.
    public func addAppGrant(_ minutes: Int, app: String, user: String? = nil, on date: CivilDate) throws -> Int {
        let user = user ?? "*"
        return try write { db in
            try db.execute(
                sql: "INSERT INTO app_grant (date, app, user, minutes) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(date, app, user) DO UPDATE SET minutes = minutes + excluded.minutes",
                arguments: [date.description, app, user, minutes])
            return try Int.fetchOne(
                db, sql: "SELECT minutes FROM app_grant WHERE date = ? AND app = ? AND user = ?",
                arguments: [date.description, app, user]) ?? minutes
        }
    }
}
