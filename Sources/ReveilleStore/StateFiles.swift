import CSQLite
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleSystem

/// The state database and what keeps it from being lost silently (README, "When the state is
/// damaged"):
/// - `state.sqlite.id`, a marker beside it: the database's own random id and what it held at the
///   last checkpoint. A database that is missing, empty, or holds another id (its write-ahead log
///   deleted before anything reached the main file) while the marker exists is not the state it was;
/// - `state.backup.sqlite`, a copy made with SQLite's backup API;
/// - at start, `PRAGMA quick_check`; a damaged, lost or unreadable database is moved aside and the
///   backup restored, loudly; with no backup the start is refused, saying what was there and how to
///   go on. Never an empty clock where there were alarms, without a word;
/// - the backup is made at start, every 6 hours and at a clean stop, each time the live database
///   passes its check;
/// - the write-ahead log is checkpointed after every write, before it is answered (`Store.write`),
///   at a clean stop and with each backup, so the main file holds everything acknowledged and a
///   lost or cut log loses nothing that was;
/// - `state.reserve`, 256 KiB held back on the same disk: when a write fails for want of space it is
///   given up and the write tried again, so a dismissal is recorded even on a full disk.
public enum StateFiles {
    /// What the marker says.
    public struct Marker: Codable, Sendable, Equatable {
        public var id: String
        public var counts: Counts
        /// Seconds since the epoch of the last checkpoint.
        public var at: Int
    }

    /// What the state holds, for the marker and the log.
    public struct Counts: Codable, Sendable, Equatable, CustomStringConvertible {
        public var alarms = 0
        public var rules = 0
        public var overrides = 0
        public var tags = 0
        public var reminders = 0

        public var description: String {
            [
                counted(alarms, "alarm"), counted(rules, "weekly rule"), counted(overrides, "override"),
                counted(tags, "tag"), counted(reminders, "reminder"),
            ].joined(separator: ", ")
        }
    }

    /// The files beside `database`.
    public struct Layout: Sendable {
        public let database: String
        public var marker: String { database + ".id" }
        public var backup: String {
            PathName.folder(database) + "/state.backup.sqlite"
        }
        public var reserve: String {
            PathName.folder(database) + "/state.reserve"
        }

        public init(database: String) {
            self.database = database
        }
    }

    /// How the state came to be open, for the log and `status`.
    public enum Opening: Sendable, Equatable {
        case fresh
        case intact
        /// Restored from the backup made at `backupAt`; the bad file was kept at `keptAt`.
        case restored(problem: String, backupAt: Int, keptAt: String)
    }

    public static let reserveBytes = 256 * 1024
    /// How often the daemon checkpoints, rewrites the marker and checks the backup's age.
    public static let maintenanceSeconds = 6.0 * 3600

    /// When the care is tried again after `failures` failures in a row (a full disk): in 5
    /// minutes, then 10, 20... and at most the usual 6 hours; after a success, the usual 6 hours.
    public static func nextCare(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return maintenanceSeconds }
        return min(maintenanceSeconds, 300 * Double(1 << min(failures - 1, 10)))
    }

    /// Opens the state at `layout`, checking it as the type says; `notes` receives what a person
    /// should read in the log (a damaged write-ahead log, a restore).
    public static func open(
        _ layout: Layout, now: Int, notes: (String) -> Void
    ) throws -> (Store, Opening) {
        let marker = readMarker(layout.marker)
        if let problem = damagedLog(layout.database) { notes(problem) }
        var problem: String?
        var store: Store?
        let size = FileStatus(layout.database)?.size
        if size == nil || size == 0 {
            if marker != nil { problem = size == nil ? "missing" : "empty (0 bytes)" }
        } else {
            do {
                let opened = try Store(path: layout.database)
                if let damage = try opened.quickCheck() {
                    problem = "damaged (quick_check: \(damage))"
                } else if let marker, try opened.stateID() != marker.id {
                    problem = "not the state it was (its id is not the one recorded in \(layout.marker))"
                } else {
                    store = opened
                }
            } catch {
                problem = "unreadable (\(error))"
            }
        }
        if let problem {
            store = nil
            let (restored, opening) = try restore(layout, problem: problem, marker: marker, now: now)
            notes(
                "the state database \(layout.database) was \(problem); restored from the backup of \(stamp(backupTime(layout) ?? 0)) (the bad file is kept as \(openingKept(opening))). Changes made since then are lost: check 'reveille alarm list'"
            )
            store = restored
            careAtStart(restored, layout, now: now, notes: notes)
            return (restored, opening)
        }
        let opened = try store ?? Store(path: layout.database)
        let fresh = try opened.stateID() == nil
        if fresh { try? opened.setStateID(UUID().uuidString) }  // a full disk: the marker waits for room
        careAtStart(opened, layout, now: now, notes: notes)
        return (opened, fresh ? .fresh : .intact)
    }

    /// `finish` at start, where a failure (a full disk) must not keep the clock from starting.
    private static func careAtStart(_ store: Store, _ layout: Layout, now: Int, notes: (String) -> Void) {
        do {
            try finish(store, layout, now: now)
        } catch {
            store.noteProblem("cannot checkpoint or back up the state: \(error)")
            notes(
                "state: cannot checkpoint or back up at start: \(error); the clock runs on, and tries again in 6 hours")
        }
    }

    /// After opening: the log checkpointed, the reserve in place, the marker written, a backup.
    static func finish(_ store: Store, _ layout: Layout, now: Int) throws {
        try store.checkpoint()
        ensureReserve(layout)
        if access(layout.reserve, F_OK) == 0 { store.clearProblem() }
        try writeMarker(store, layout, now: now)
        // A copy each time (a few kilobytes), never of a database that fails its check.
        if try store.quickCheck() == nil { try backup(store, layout) }
    }

    /// The periodic care (every 6 hours, and at a clean stop): checkpoint, marker, backup.
    /// Throws what went wrong (a full disk), for `status`.
    public static func maintain(_ store: Store, _ layout: Layout, now: Int) throws {
        try finish(store, layout, now: now)
    }

    /// Copies the live database to the backup with SQLite's backup API (sqlite3_backup_init, _step,
    /// _finish) on the store's own connection, into a file beside it that is renamed over the last
    /// backup only once it is whole. The copy is opened with its own sqlite3_open_v2, not a `Store`
    /// queue: releasing a queue disposes a dispatch queue, which starts libdispatch's worker pool
    /// and its 1 Hz monitor for the life of the daemon (measured: 63 idle wake-ups a minute).
    public static func backup(_ store: Store, _ layout: Layout) throws {
        let temporary = layout.backup + ".new"
        unlink(temporary)
        try store.db.writeWithoutTransaction { db in
            let source = db.handle
            var copy: OpaquePointer?
            defer { sqlite3_close(copy) }
            guard sqlite3_open_v2(temporary, &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
                let backup = sqlite3_backup_init(copy, "main", source, "main")
            else {
                throw StoreError(
                    description:
                        "cannot back up to \(temporary): \(copy.map { String(cString: sqlite3_errmsg($0)) } ?? "no memory")"
                )
            }
            let stepped = sqlite3_backup_step(backup, -1)
            let finished = sqlite3_backup_finish(backup)
            guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
                throw StoreError(
                    description: "cannot back up to \(temporary): \(String(cString: sqlite3_errmsg(copy)))")
            }
        }
        guard rename(temporary, layout.backup) == 0 else {
            throw StoreError(
                description: "cannot keep the backup \(layout.backup): \(String(cString: strerror(errno)))")
        }
    }

    /// Gives up the reserve, so that a write refused for want of space can go through. Returns
    /// whether there was one to give.
    @discardableResult
    public static func releaseReserve(_ layout: Layout) -> Bool {
        unlink(layout.reserve) == 0
    }

    /// Puts the reserve back (at start and with each checkpoint, once there is room again).
    static func ensureReserve(_ layout: Layout) {
        var info = stat()
        if stat(layout.reserve, &info) == 0, Int(info.st_size) >= reserveBytes { return }
        // Best effort: without room for it there is nothing to reserve, and the next checkpoint tries again.
        guard
            let file = try? Descriptor.open(
                "open", layout.reserve, { Glibc.open(layout.reserve, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600) })
        else { return }
        if file.withRaw({ posix_fallocate($0, 0, off_t(reserveBytes)) }) != 0 { unlink(layout.reserve) }
    }

    // MARK: Restoring

    private static func restore(_ layout: Layout, problem: String, marker: Marker?, now: Int) throws -> (
        Store, Opening
    ) {
        let held = marker.map { "it held \($0.counts) on \(stamp($0.at))" } ?? "nothing was recorded of what it held"
        guard let backupAt = backupTime(layout), checkBackup(layout) else {
            throw StoreError(
                description:
                    "the state database \(layout.database) is \(problem), and there is no usable backup (\(layout.backup)); \(held). Put a good copy in its place, or move \(layout.database) and \(layout.marker) away to start with an empty clock"
            )
        }
        let kept = layout.database + ".broken-\(now)"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: layout.database + suffix) {
            guard rename(layout.database + suffix, kept + suffix) == 0 else {
                throw StoreError(
                    description:
                        "the state database \(layout.database) is \(problem), and it cannot be moved aside to restore the backup: \(String(cString: strerror(errno)))"
                )
            }
        }
        try FileManager.default.copyItem(atPath: layout.backup, toPath: layout.database)
        let store = try Store(path: layout.database)
        if try store.stateID() == nil { try store.setStateID(UUID().uuidString) }
        return (store, .restored(problem: problem, backupAt: backupAt, keptAt: kept))
    }

    private static func openingKept(_ opening: Opening) -> String {
        if case .restored(_, _, let kept) = opening { return kept }
        return "-"
    }

    /// `PRAGMA quick_check` on the backup, opened read-only with plain sqlite3 (see `backup`).
    private static func checkBackup(_ layout: Layout) -> Bool {
        var connection: OpaquePointer?
        defer { sqlite3_close(connection) }
        guard sqlite3_open_v2(layout.backup, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return false }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, "PRAGMA quick_check", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0)
        else { return false }
        return String(cString: text) == "ok"
    }

    static func backupTime(_ layout: Layout) -> Int? {
        FileStatus(layout.backup)?.modified
    }

    // MARK: Marker

    static func readMarker(_ path: String) -> Marker? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Marker.self, from: data)
    }

    static func writeMarker(_ store: Store, _ layout: Layout, now: Int) throws {
        guard let id = try store.stateID() else { return }
        let data = try JSONEncoder().encode(Marker(id: id, counts: try store.counts(), at: now))
        let temporary = layout.marker + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: data), rename(temporary, layout.marker) == 0
        else {
            throw StoreError(description: "cannot write \(layout.marker): \(String(cString: strerror(errno)))")
        }
    }

    /// A write-ahead log whose header is not SQLite's: SQLite would drop it without a word.
    static func damagedLog(_ database: String) -> String? {
        let log = database + "-wal"
        guard let head = RegularFile.head(log, count: 4) else { return nil }
        guard !head.isEmpty else { return nil }
        let magic = head.count == 4 ? head.reduce(0) { $0 << 8 | UInt32($1) } : 0
        guard magic != 0x377F_0682, magic != 0x377F_0683 else { return nil }
        return
            "the state's write-ahead log \(log) is damaged (its header is not SQLite's) and is ignored: every change answered was moved into the database before it was answered, so at most a change under way at the crash is lost; check 'reveille alarm list'"
    }

    public static func stamp(_ instant: Int) -> String {
        var time = time_t(instant)
        var parts = tm()
        localtime_r(&time, &parts)
        return "\(parts.tm_year + 1900)-\(NumberText.padded(Int(parts.tm_mon) + 1, width: 2))-"
            + "\(NumberText.padded(Int(parts.tm_mday), width: 2)) \(NumberText.padded(Int(parts.tm_hour), width: 2)):"
            + NumberText.padded(Int(parts.tm_min), width: 2)
    }
}

extension Store {
    /// `PRAGMA quick_check`: nil when the database is sound, else SQLite's first complaint.
    func quickCheck() throws -> String? {
        try db.read { db in
            let result = try db.text("PRAGMA quick_check") ?? "no answer"
            return result == "ok" ? nil : result
        }
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: everything into the main file, the log emptied.
    public func checkpoint() throws {
        try db.writeWithoutTransaction { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    func stateID() throws -> String? {
        try db.read { db in
            guard try db.int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'setting'") == 1 else {
                return nil
            }
            return try db.text("SELECT value FROM setting WHERE key = 'state_id'")
        }
    }

    func setStateID(_ id: String) throws {
        try write { db in
            try db.execute("INSERT OR REPLACE INTO setting (key, value) VALUES ('state_id', ?)", id)
        }
    }

    /// What the state holds.
    public func counts() throws -> StateFiles.Counts {
        try db.read { db in
            var counts = StateFiles.Counts()
            counts.alarms = try db.int("SELECT count(*) FROM alarm") ?? 0
            counts.rules = try db.int("SELECT count(*) FROM weekly_rule") ?? 0
            counts.overrides = try db.int("SELECT count(*) FROM date_override") ?? 0
            counts.tags = try db.int("SELECT count(*) FROM tag") ?? 0
            counts.reminders = try db.int("SELECT count(*) FROM reminder") ?? 0
            return counts
        }
    }
}
