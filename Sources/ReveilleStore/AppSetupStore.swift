import ReveilleCore

/// The app policy in force and requests for more time (docs/guide/apps.md, "Where the app policy lives").
///
/// The policy in force is kept as apps.toml text (`AppPolicyText`), with `base`: the file as last
/// merged, from which a later hand edit is told apart from a change made on the page or the CLI.
extension Store {
    static func addAppSetupMigration(_ migrations: inout Migrations) {
        migrations.add("v12: the app policy in force, and requests for more time") { db in
            try db.execute(
                """
                CREATE TABLE "app_policy_in_force" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1),
                  "text" TEXT NOT NULL, "base" TEXT NOT NULL, "revision" INTEGER NOT NULL,
                  "saved_at" INTEGER NOT NULL);
                CREATE TABLE "app_request" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "date" TEXT NOT NULL,
                  "user" TEXT NOT NULL, "app" TEXT NOT NULL, "minutes" INTEGER NOT NULL, "why" TEXT,
                  "asked_at" INTEGER NOT NULL, "state" TEXT NOT NULL, "answered_by" TEXT);
                CREATE INDEX "app_request_on_date" ON "app_request"("date");
                """)
        }
    }

    /// The policy in force: its text, the file as last merged, and its revision.
    public struct AppPolicyRecord: Equatable, Sendable {
        public var text: String
        public var base: String
        public var revision: Int
        /// When it was last saved (seconds since the epoch); nil before it is.
        public var savedAt: Int?

        public init(text: String, base: String, revision: Int, savedAt: Int? = nil) {
            self.text = text
            self.base = base
            self.revision = revision
            self.savedAt = savedAt
        }
    }

    public func appPolicyInForce() throws -> AppPolicyRecord? {
        try db.read { db in
            try db.row("SELECT text, base, revision, saved_at FROM app_policy_in_force WHERE id = 1").map {
                AppPolicyRecord(
                    text: try $0.text("text"), base: try $0.text("base"), revision: try $0.int("revision"),
                    savedAt: try $0.int("saved_at"))
            }
        }
    }

    public func saveAppPolicyInForce(_ record: AppPolicyRecord, at instant: Int) throws {
        try write { db in
            try db.execute(
                "INSERT INTO app_policy_in_force (id, text, base, revision, saved_at) VALUES (1, ?, ?, ?, ?) "
                    + "ON CONFLICT(id) DO UPDATE SET text = excluded.text, base = excluded.base, "
                    + "revision = excluded.revision, saved_at = excluded.saved_at",
                record.text, record.base, record.revision, instant)
        }
    }

    /// A request for more time, as stored.
    public struct AppRequestRecord: Equatable, Sendable {
        public var id: Int
        public var date: CivilDate
        public var user: String
        public var app: String
        public var minutes: Int
        public var why: String?
        public var askedAt: Int
        public var state: String
        public var answeredBy: String?
    }

    public func addAppRequest(
        user: String, app: String, minutes: Int, why: String?, on date: CivilDate, at instant: Int
    ) throws -> Int {
        try write { db in
            Int(
                try db.insert(
                    into: "app_request",
                    [
                        ("date", date.description), ("user", user), ("app", app), ("minutes", minutes), ("why", why),
                        ("asked_at", instant), ("state", "waiting"),
                    ]))
        }
    }

    /// The requests made on `date`, oldest first.
    public func appRequests(on date: CivilDate) throws -> [AppRequestRecord] {
        try db.read { db in
            try db.rows(
                "SELECT id, date, user, app, minutes, why, asked_at, state, answered_by FROM app_request "
                    + "WHERE date = ? ORDER BY id", date.description
            ).map { row in
                AppRequestRecord(
                    id: try row.int("id"), date: date, user: try row.text("user"), app: try row.text("app"),
                    minutes: try row.int("minutes"), why: try row.optionalText("why"), askedAt: try row.int("asked_at"),
                    state: try row.text("state"), answeredBy: try row.optionalText("answered_by"))
            }
        }
    }

    /// Answers a waiting request; false when it is not waiting (answered already, or unknown).
    public func answerAppRequest(_ id: Int, state: String, by who: String) throws -> Bool {
        try write { db in
            try db.execute(
                "UPDATE app_request SET state = ?, answered_by = ? WHERE id = ? AND state = 'waiting'", state, who, id)
            return try db.int("SELECT changes()") == 1
        }
    }

    /// Requests older than `date` go: they were for a day that is over.
    public func forgetAppRequests(before date: CivilDate) throws {
        try write { db in try db.execute("DELETE FROM app_request WHERE date < ?", date.description) }
    }
}
