import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// The state database when something happens to it between two starts (README, "When the state
/// is damaged"): restored from the backup, loudly, or the start refused, saying what was there;
/// never an empty clock without a word.
@Suite struct StateSurvivalTests {
    /// A daemon with five alarms and a rule, stopped cleanly (which checkpoints and backs up).
    func stoppedWithAlarms() throws -> DaemonHarness {
        let daemon = try DaemonHarness(now: CLITourTests.saturdayMorning)
        for minute in 10..<15 {
            #expect(try daemon.cli("alarm", "add", "6:\(minute)", "--days", "mon-fri").status == 0)
        }
        #expect(try daemon.cli("rule", "add", "--days", "sat", "--at", "9:00", "--alarm", "1").status == 0)
        daemon.stop()
        return daemon
    }

    var database: (DaemonHarness) -> String { { $0.paths.database } }

    func alarmCount(_ daemon: DaemonHarness) throws -> Int {
        try daemon.request(.alarmList).alarms?.count ?? -1
    }

    @Test func aCleanStopLeavesEverythingInTheMainFileAndWithoutABackupAnEmptyOneIsRefused() throws {
        let daemon = try stoppedWithAlarms()
        let wal =
            (try? FileManager.default.attributesOfItem(atPath: daemon.paths.database + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the write-ahead log holds \(wal) bytes after a clean stop")
        // The log deleted: nothing is lost.
        try? FileManager.default.removeItem(atPath: daemon.paths.database + "-wal")
        try daemon.start()
        #expect(try alarmCount(daemon) == 5)

        // Then, stopped again, the backup gone and the file emptied: the start is refused, saying
        // what was there.
        daemon.stop()
        let folder = (daemon.paths.database as NSString).deletingLastPathComponent
        try FileManager.default.removeItem(atPath: folder + "/state.backup.sqlite")
        #expect(truncate(daemon.paths.database, 0) == 0)
        #expect(throws: HarnessError.self) { try daemon.start() }
        #expect(
            daemon.logText().contains(
                "is empty (0 bytes), and there is no usable backup (\(folder)/state.backup.sqlite); it held 5 alarms, 1 weekly rule, 0 overrides, 0 tags, 0 reminders on "
            ), "\(daemon.logText())")
        #expect(daemon.logText().contains("to start with an empty clock"))
    }

    @Test(arguments: ["truncated", "garbled", "replaced"])
    func aDamagedDatabaseIsRestoredFromTheBackupLoudly(damage: String) throws {
        let daemon = try stoppedWithAlarms()
        let path = daemon.paths.database
        switch damage {
        case "truncated":
            #expect(truncate(path, 0) == 0)
        case "garbled":
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
            try handle.close()
        default:
            // Another database in its place (as if the log had been lost before any checkpoint).
            try FileManager.default.removeItem(atPath: path)
            let other = try DaemonHarness()
            other.stop()
            try FileManager.default.copyItem(atPath: other.paths.database, toPath: path)
        }
        try daemon.start()
        #expect(try alarmCount(daemon) == 5, "\(damage)")
        #expect(try daemon.request(.ruleList).rules?.count == 1)
        #expect(daemon.logText().contains("critical reveilled: the state database \(path) was "), "\(damage)")
        #expect(daemon.logText().contains("restored from the backup of "))
        let status = try daemon.cli("status").stdout
        #expect(status.contains("STATE PROBLEM: restored at start from the backup of "), "\(status)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(kept.contains { $0.hasPrefix("state.sqlite.broken-") }, "the bad file is kept: \(kept)")
    }

    /// The household's finding: five alarms and a rule, `kill -9`, then the write-ahead log
    /// deleted or cut to 100 bytes. Every write is checkpointed before it is answered, so the log
    /// holds nothing acknowledged: nothing is lost; a cut log is still said aloud.
    @Test(arguments: ["deleted", "cut"])
    func aLogLostAfterACrashLosesNothingAcknowledged(damage: String) throws {
        let daemon = try DaemonHarness(now: CLITourTests.saturdayMorning)
        for minute in 10..<15 {
            #expect(try daemon.cli("alarm", "add", "6:\(minute)", "--days", "mon-fri").status == 0)
        }
        #expect(try daemon.cli("rule", "add", "--days", "sat", "--at", "9:00", "--alarm", "1").status == 0)
        daemon.crash()
        let log = daemon.paths.database + "-wal"
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        #expect(size == 0, "the log holds \(size) bytes after acknowledged writes")
        if damage == "deleted" {
            try? FileManager.default.removeItem(atPath: log)
        } else {
            #expect(truncate(log, 100) == 0 || FileManager.default.createFile(atPath: log, contents: Data(count: 100)))
        }
        try daemon.start()
        #expect(try alarmCount(daemon) == 5, "\(damage)")
        #expect(try daemon.request(.ruleList).rules?.count == 1, "\(damage)")
        if damage == "cut" { #expect(daemon.logText().contains("write-ahead log \(log) is damaged")) }
    }
}

/// A full disk under the state and under the log (docs/guide/recovery.md, "When the state is damaged").
@Suite(.serialized) struct FullDiskTests {
    /// Mounts a small tmpfs at `path` (root only); unmounted by the returned closure.
    static func smallDisk(at path: String, kilobytes: Int) throws -> () -> Void {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try runProcess(
            URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path])
        try #require(mounted.status == 0, "mount: \(mounted.stderr)")
        return { _ = try? runProcess(URL(fileURLWithPath: "/bin/umount"), ["-l", path]) }
    }

    /// A daemon root whose `folder` (a path under it) is a small tmpfs: the root, the folder's
    /// path, and how to unmount it.
    static func rootWithSmallDisk(_ folder: String, kilobytes: Int) throws -> (
        root: URL, disk: String, unmount: () -> Void
    ) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-full-\(UUID().uuidString.prefix(8))")
        let disk = root.appendingPathComponent(folder).path
        return (root, disk, try smallDisk(at: disk, kilobytes: kilobytes))
    }

    /// Writes a file until the disk is full.
    static func fill(_ folder: String) {
        let fd = open(folder + "/filler", O_WRONLY | O_CREAT, 0o600)
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 4096) }) > 0 {}
    }

    /// A change to the app policy the state cannot hold is refused whole: nothing half-applied,
    /// and what is in force is what a restart finds. A dismissal on a full disk is kept.
    @Test(.enabled(if: isRoot, "needs root: mounts a small tmpfs to fill"))
    func anAppChangeOnAFullDiskIsRefusedWholeAndADismissalIsKept() throws {
        let (root, state, unmount) = try Self.rootWithSmallDisk("var/lib/reveille", kilobytes: 2048)
        defer { unmount() }
        let daemon = try DaemonHarness(root: root)
        #expect(try daemon.cli("apps", "add", "game", "--path", "/usr/games/game", "--limit", "60").status == 0)
        // Filled again after each try: the first full write may be saved by the space held in reserve.
        var refused: (name: String, outcome: Outcome)?
        for index in 1...4 where refused == nil {
            Self.fill(state)
            let name = "app\(index)"
            let outcome = try daemon.cli("apps", "add", name, "--path", "/usr/games/\(name)", "--limit", "30")
            if outcome.status != 0 { refused = (name, outcome) }
        }
        let (name, outcome) = try #require(refused, "no change was refused on a full disk")
        #expect(outcome.stderr.contains("the change cannot be kept ("), "\(outcome)")
        #expect(outcome.stderr.contains("nothing was changed: free some space and try again"))
        let inForce = try daemon.cli("apps", "list").stdout
        #expect(row(inForce, name) == nil, "not in force either: \(inForce)")
        #expect(daemon.process.isRunning)
        daemon.crash()
        try? FileManager.default.removeItem(atPath: state + "/filler")
        try daemon.start()
        #expect(try daemon.cli("apps", "list").stdout == inForce, "a restart finds what was in force")

        // A dismissal on a full disk is recorded, and not rung again after a crash.
        #expect(try daemon.cli("alarm", "add", "--in", "2s", "--label", "nap").status == 0)
        Self.fill(state)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.dismissByMath().status == 0)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        let status = try daemon.cli("status").stdout
        #expect(status.contains("STATE PROBLEM: the disk is full; the space held in reserve was used"), "\(status)")
        daemon.crash()
        try daemon.start()
        #expect(try daemon.session() == nil, "the dismissed alarm rings again after a restart")
        let history = try daemon.cli("history").stdout
        #expect(history.contains("nap"), "\(history)")
        #expect(daemon.process.isRunning)
    }

    @Test(.enabled(if: isRoot, "needs root: mounts a small tmpfs to fill"))
    func aFullLogDiskDoesNotStopTheDaemon() throws {
        let (root, logs, unmount) = try Self.rootWithSmallDisk("var/log/reveille", kilobytes: 64)
        defer { unmount() }
        let daemon = try DaemonHarness(root: root)
        Self.fill(logs)
        for _ in 0..<50 { _ = try daemon.cli("alarm", "add", "7:00", "--label", String(repeating: "x", count: 200)) }
        #expect(daemon.process.isRunning, "the daemon died on a full log disk")
        #expect(daemon.answersStatus())
    }

    @Test func aClosedStandardErrorDoesNotStopTheDaemon() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-pipe-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let process = Process()
        process.executableURL = Binaries.daemon
        process.arguments = ["--root", root.path]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try pipe.fileHandleForReading.close()  // nobody reads what it logs: each write gets EPIPE
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let socket = Paths(root: root.path).socket
        var answered = false
        for _ in 0..<200 where !answered {
            usleep(25_000)
            answered = (try? ControlClient(path: socket).send(.status))?.ok == true
        }
        #expect(answered)
        var spec = AlarmSpec()
        spec.label = "first"
        spec.time = LocalTime(hour: 7, minute: 0)!
        for _ in 0..<20 { _ = try? ControlClient(path: socket).send(.alarmAdd(spec: spec)) }
        #expect(process.isRunning, "SIGPIPE or a failed log write ended the daemon")
    }
}
