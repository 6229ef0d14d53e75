import ReveilleApps
import ReveilleCore

/// App usage and grants per local day (docs/guide/apps.md, "App time windows and daily limits"): seconds an app ran for a user, and extra
/// minutes an admin granted for the day.
extension Store {
    static func addAppMigrations(_ migrations: inout Migrations) {
        migrations.add("v4: app usage and grants") { db in
            try db.execute(
                """
                CREATE TABLE "app_usage" ("date" TEXT NOT NULL, "app" TEXT NOT NULL, "user" TEXT NOT NULL,
                  "seconds" INTEGER NOT NULL, PRIMARY KEY ("date", "app", "user"));
                CREATE TABLE "app_grant" ("date" TEXT NOT NULL, "app" TEXT NOT NULL, "minutes" INTEGER NOT NULL,
                  PRIMARY KEY ("date", "app"));
                """)
        }
        migrations.add("v6: the last good app policy") { db in
            try db.execute(
                """
                CREATE TABLE "app_policy" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "text" TEXT NOT NULL,
                  "saved_at" INTEGER NOT NULL)
                """)
        }
        migrations.add("v7: app grants per user") { db in
            // '*': every user of the app, which is what each grant before this was.
            try db.execute(
                """
                CREATE TABLE "app_grant_per_user" ("date" TEXT NOT NULL, "app" TEXT NOT NULL,
                  "user" TEXT NOT NULL DEFAULT '*', "minutes" INTEGER NOT NULL, PRIMARY KEY ("date", "app", "user"));
                INSERT INTO app_grant_per_user (date, app, user, minutes) SELECT date, app, '*', minutes FROM app_grant;
                DROP TABLE "app_grant";
                ALTER TABLE "app_grant_per_user" RENAME TO "app_grant";
                """)
        }
    }

    /// Keeps `text`, an apps.toml that loaded, as the policy to enforce when the file does not
    /// load at a later start: a broken file never opens the gates.
    public func saveGoodAppPolicy(_ text: String, at instant: Int) throws {
        try write { db in
            try db.execute(
                "INSERT INTO app_policy (id, text, saved_at) VALUES (1, ?, ?) "
                    + "ON CONFLICT(id) DO UPDATE SET text = excluded.text, saved_at = excluded.saved_at "
                    + "WHERE text != excluded.text",
                text, instant)
        }
    }

    /// The last apps.toml that loaded, and when it was saved (seconds since the epoch).
    public func goodAppPolicy() throws -> (text: String, savedAt: Int)? {
        try db.read { db in
            try db.row("SELECT text, saved_at FROM app_policy WHERE id = 1").map {
                (try $0.text("text"), try $0.int("saved_at"))
            }
        }
    }

    /// Seconds used on `date`, by app and user.
    public func appUsage(on date: CivilDate) throws -> [AppUsageKey: Int] {
        try db.read { db in
            var usage: [AppUsageKey: Int] = [:]
            let rows = try db.rows("SELECT app, user, seconds FROM app_usage WHERE date = ?", date.description)
            for row in rows {
                usage[AppUsageKey(app: try row.text("app"), user: try row.text("user"))] = try row.int("seconds")
            }
            return usage
        }
    }

    public func setAppUsage(_ seconds: Int, for key: AppUsageKey, on date: CivilDate) throws {
        try write { db in
            try db.execute(
                "INSERT INTO app_usage (date, app, user, seconds) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(date, app, user) DO UPDATE SET seconds = excluded.seconds",
                date.description, key.app, key.user, seconds)
        }
    }

    /// Minutes granted on `date`, by app and user (`*`: every user).
    public func appGrants(on date: CivilDate) throws -> [AppUsageKey: Int] {
        try db.read { db in
            var grants: [AppUsageKey: Int] = [:]
            for row in try db.rows("SELECT app, user, minutes FROM app_grant WHERE date = ?", date.description) {
                grants[AppUsageKey(app: try row.text("app"), user: try row.text("user"))] = try row.int("minutes")
            }
            return grants
        }
    }

    /// Adds `minutes` to the day's grant for `app` and `user` (nil: every user), and with
    /// `openUntil` opens the app until then outside its hours (the later of two openings stands);
    /// returns that grant's new total and opening.
    public func addAppGrant(
        _ minutes: Int, app: String, user: String? = nil, on date: CivilDate, openUntil: Int? = nil
    ) throws -> (minutes: Int, openUntil: Int?) {
        let user = user ?? "*"
        return try write { db in
            try db.execute(
                "INSERT INTO app_grant (date, app, user, minutes, open_until) VALUES (?, ?, ?, ?, ?) "
                    + "ON CONFLICT(date, app, user) DO UPDATE SET minutes = minutes + excluded.minutes, "
                    + "open_until = max(coalesce(open_until, 0), coalesce(excluded.open_until, 0))",
                date.description, app, user, minutes, openUntil)
            let row = try db.row(
                "SELECT minutes, open_until FROM app_grant WHERE date = ? AND app = ? AND user = ?",
                date.description, app, user)
            let opened = try row?.optionalInt("open_until")
            return (try row?.int("minutes") ?? minutes, opened == 0 ? nil : opened)
        }
    }

    /// The household hub's grant of `app` on `date` (`user` nil: every user): the minutes in all
    /// become `minutes` if that is more than kept here, never fewer (a grant only grows in a day,
    /// and a message repeated or late changes nothing). Returns the minutes in all, and whether
    /// they rose.
    public func raiseAppGrant(to minutes: Int, app: String, user: String?, on date: CivilDate) throws -> (
        minutes: Int, rose: Bool
    ) {
        let user = user ?? "*"
        return try write { db in
            let before = try db.row(
                "SELECT minutes FROM app_grant WHERE date = ? AND app = ? AND user = ?", date.description, app, user
            )?.int("minutes")
            guard minutes > before ?? 0 else { return (before ?? 0, false) }
            try db.execute(
                "INSERT INTO app_grant (date, app, user, minutes) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT(date, app, user) DO UPDATE SET minutes = excluded.minutes",
                date.description, app, user, minutes)
            return (minutes, true)
        }
    }

    /// The household's hub whose policy this machine follows, and since when (Unix seconds).
    public func appPolicyHub() throws -> (name: String, since: Int)? {
        try db.read { db in
            guard let value = try Store.setting(db, "app_policy_hub"),
                let space = value.firstIndex(of: " "), let since = Int(value[..<space])
            else { return nil }
            return (String(value[value.index(after: space)...]), since)
        }
    }

    /// Records the hub this machine follows (nil: none, its own policy again).
    public func setAppPolicyHub(_ hub: (name: String, since: Int)?) throws {
        try write { db in
            if let hub {
                try Store.setSetting(db, "app_policy_hub", "\(hub.since) \(hub.name)")
            } else {
                try db.execute("DELETE FROM setting WHERE key = 'app_policy_hub'")
            }
        }
    }

    /// Until when each app is open today outside its hours, by app and user (`*`: every user).
    public func appOpenings(on date: CivilDate) throws -> [AppUsageKey: Int] {
        try db.read { db in
            var openings: [AppUsageKey: Int] = [:]
            let rows = try db.rows(
                "SELECT app, user, open_until FROM app_grant WHERE date = ? AND open_until > 0", date.description)
            for row in rows {
                openings[AppUsageKey(app: try row.text("app"), user: try row.text("user"))] = try row.int("open_until")
            }
            return openings
        }
    }
}
