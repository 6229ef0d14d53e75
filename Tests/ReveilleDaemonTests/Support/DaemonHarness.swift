import CReveilleShims
import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Synchronization
import Testing

/// A real `reveilled` running under a temporary `--root`, with its clock shifted (through the
/// daemon's offset-file seam) so that "now" is a chosen instant.
final class DaemonHarness {
    let root: URL
    let clockFile: URL
    private(set) var process: DaemonProcess!
    /// nil: the daemon follows the zone link.
    let zone: String?
    let systemClock: Bool
    let arguments: [String]
    let extraEnvironment: [String: String]
    /// The `reveilled` run: the build's, or a copy beside other helpers.
    let executable: URL
    let output: URL
    var paths: Paths { Paths(root: root.path) }
    /// The emulated PN532 the daemon reads tags from (with `nfcReader: true`).
    private(set) var emulator: PN532Emulator?
    /// The connstring the daemon is given for it.
    var readerConnstring: String { "pn532_uart:" + root.appendingPathComponent("nfc-reader").path }
    /// Where the daemon's sound goes: ALSA's file plugin writes it here as WAV.
    var soundCapture: String { root.appendingPathComponent("sound.wav").path }
    /// The ALSA device that captures into `soundCapture`.
    var captureDevice: String { "file:'\(soundCapture)',wav" }

    /// Starts the daemon and waits until its socket answers.
    /// - Parameters:
    ///   - now: the instant (seconds since the epoch) the daemon should believe it is at start.
    ///   - zoneLink: instead of `--time-zone`, a zone name (or a zone file's path) for a
    ///     `ROOT/etc/localtime` link, which the daemon then follows as the system's zone.
    ///   - systemClock: run on the system clock, with no test clock at all (whose file the daemon polls).
    ///   - settings: reveille.toml; by default the sound goes to `soundCapture`.
    ///   - executable: the daemon run (it finds `reveille-calendar` beside itself).
    ///   - moreSettings: added to the settings (default or given).
    init(
        zone: String = "Europe/Berlin", zoneLink: String? = nil, now: Int? = nil, systemClock: Bool = false,
        arguments: [String] = [], settings: String? = nil, moreSettings: String = "", nfcReader: Bool = false,
        environment: [String: String] = [:], apps: String? = nil, root: URL? = nil, executable: URL = Binaries.daemon
    ) throws {
        self.executable = executable
        self.root =
            root
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "reveille-e2e-\(UUID().uuidString.prefix(8))")
        let root = self.root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        chmod(root.path, 0o755)  // so that a test can connect as another user
        clockFile = root.appendingPathComponent("clock-offset")
        if let now {
            wallOffset = Double(now) - Date().timeIntervalSince1970
            try DaemonHarness.write(offset: wallOffset, to: clockFile)
        }
        if let zoneLink {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent("etc/localtime").path,
                withDestinationPath: zoneLink.hasPrefix("/") ? zoneLink : "/usr/share/zoneinfo/" + zoneLink)
        }
        let configFolder = root.appendingPathComponent("etc/reveille")
        try FileManager.default.createDirectory(at: configFolder, withIntermediateDirectories: true)
        let capture = root.appendingPathComponent("sound.wav").path
        var text = (settings ?? "[audio]\ndevices = [\"file:'\(capture)',wav\"]\n") + moreSettings
        if nfcReader {
            emulator = try PN532Emulator(link: root.appendingPathComponent("nfc-reader").path)
            text += "[nfc]\ndevice = \"pn532_uart:\(root.appendingPathComponent("nfc-reader").path)\"\n"
        }
        if let apps {
            try apps.write(to: configFolder.appendingPathComponent("apps.toml"), atomically: true, encoding: .utf8)
        }
        try text.write(
            to: configFolder.appendingPathComponent("reveille.toml"), atomically: true, encoding: .utf8)
        self.zone = zoneLink == nil ? zone : nil
        self.systemClock = systemClock
        self.arguments = arguments
        self.extraEnvironment = environment
        output = root.appendingPathComponent("reveilled.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        try start()
    }

    /// Starts a new daemon process on the same root (after `stop()`), as systemd would after a crash.
    func start() throws {
        process = try DaemonProcess(
            executable.path,
            ["--root", root.path] + (systemClock ? [] : ["--clock-offset-file", clockFile.path])
                + (zone.map { ["--time-zone", $0] } ?? []) + arguments,
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "TZ" }
                .merging(extraEnvironment) { $1 },
            output: output.path)
        try waitUntilServing()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// SIGTERM, then waits for the daemon to exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Runs the real `reveille` against this daemon.
    func cli(_ arguments: String...) throws -> Outcome {
        try cli(arguments)
    }

    func cli(_ arguments: [String], input: String? = nil) throws -> Outcome {
        try runProcess(Binaries.cli, arguments, environment: ["REVEILLE_ROOT": root.path], input: input)
    }

    /// Runs the real `reveille` as another user (root only): `setpriv` drops to uid/gid with no other groups.
    func cli(asUID uid: Int, gid: Int, _ arguments: String...) throws -> Outcome {
        try runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", Binaries.cli.path] + arguments,
            environment: ["REVEILLE_ROOT": root.path])
    }

    /// A raw connection to the control socket.
    func connect() throws -> ControlClient {
        try ControlClient(path: paths.socket)
    }

    /// Whether the daemon answers `status` right now.
    func answersStatus() -> Bool {
        guard let client = try? connect(), let response = try? client.send(.status) else { return false }
        return response.ok && response.status != nil
    }

    /// Points `ROOT/etc/localtime` at another zone the way timedatectl does: a new link renamed over
    /// the old one.
    func changeZoneLink(to name: String) throws {
        let link = root.appendingPathComponent("etc/localtime").path
        let fresh = link + ".new"
        try FileManager.default.createSymbolicLink(atPath: fresh, withDestinationPath: "/usr/share/zoneinfo/" + name)
        guard rename(fresh, link) == 0 else { throw HarnessError("rename \(fresh): errno \(errno)") }
    }

    /// Steps the daemon's wall clock so that it reads `instant` now (seconds since the epoch), as
    /// network time or `date -s` would: the time that passed (`elapsed`, what app usage counts)
    /// does not move.
    func setNow(_ instant: Int) throws {
        wallOffset = Double(instant) - Date().timeIntervalSince1970
        try "\(wallOffset) \(elapsedOffset)".write(to: clockFile, atomically: true, encoding: .utf8)
    }

    /// Makes `seconds` pass at once: the wall clock and the elapsed time both move.
    func advance(by seconds: Double) throws {
        wallOffset += seconds
        elapsedOffset += seconds
        try "\(wallOffset) \(elapsedOffset)".write(to: clockFile, atomically: true, encoding: .utf8)
    }

    private var wallOffset = 0.0
    private var elapsedOffset = 0.0

    /// Kills the daemon with SIGKILL, as a crash would.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// One request over a raw connection.
    func request(_ command: Command) throws -> Response {
        try connect().send(command)
    }

    /// The session ringing or snoozed now, if any.
    func session() throws -> SessionInfo? {
        try request(.status).status?.session
    }

    /// Waits until the daemon has looked at its clock's reading now (what was due by then rang or
    /// was recorded): after `advance` or `setNow`, what did not ring by then does not ring.
    func settle(_ seconds: Double = 10) throws -> Bool {
        let target = Int(Date().timeIntervalSince1970 + wallOffset)
        return try waitFor(seconds) { (try request(.status).status?.judgedThrough ?? 0) >= target }
    }

    /// Waits until the file plugin closed the capture: its WAV header then counts every byte
    /// written (alsa-lib completes it at close).
    func captureClosed(_ seconds: Double = 5) -> Bool { wavClosed(soundCapture, seconds) }

    /// Waits until the file plugin closed the WAV at `path` (its header counts every byte).
    func wavClosed(_ path: String, _ seconds: Double = 5) -> Bool {
        waitFor(seconds) {
            guard let data = FileManager.default.contents(atPath: path), data.count >= 44 else { return false }
            let riff = data[4..<8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            return riff == data.count - 8
        }
    }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass; returns whether it held.
    func waitFor(_ seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// Asks for the problem and answers it right, through the real CLI.
    func dismissByMath() throws -> Outcome {
        let problem = try #require(try request(.problem).problem)
        return try cli("dismiss", "--answer", String(solve(problem)))
    }

    /// Whatever the daemon printed so far.
    func logText() -> String {
        (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// The size of the sound captured so far, in bytes (0: none yet).
    func capturedBytes() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: soundCapture))?[.size] as? Int) ?? 0
    }

    private func waitUntilServing() throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if answersStatus() { return }
            guard process.isRunning else {
                throw HarnessError("reveilled exited at start:\n\(logText())")
            }
            usleep(20_000)
        }
        throw HarnessError("reveilled did not answer on \(paths.socket) within 15 s")
    }

    static func write(offset: Double, to file: URL) throws {
        try String(offset).write(to: file, atomically: true, encoding: .utf8)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Seconds since the epoch of a local wall-clock time in `zone`.
func instant(_ local: String, zone: String = "Europe/Berlin") -> Int {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return Int(formatter.date(from: local)!.timeIntervalSince1970)
}

/// The answer to `37 × 4 + 19` or `12 + 30`: products first, then the sum.
func solve(_ problem: String) -> Int {
    problem.components(separatedBy: " + ").map { term in
        term.components(separatedBy: " × ").map { Int($0.trimmingCharacters(in: .whitespaces))! }.reduce(1, *)
    }.reduce(0, +)
}

/// Real daemons shared by every test in the process that does not need one of its own. Each is
/// started on first use and stopped when the test process exits. A test that adds, edits, rings or
/// plays uses a daemon of its own, except the one state `household` is started with.
enum SharedDaemon {
    /// For the checks that change nothing — refusals, usage errors, garbage on the socket, reads of
    /// a clock with nothing set: Saturday 2026-11-21 10:00 in Berlin, no alarms, its sound to the
    /// capture file, the socket for root only.
    nonisolated(unsafe) static let unchanged = start { try DaemonHarness(now: CLITourTests.saturdayMorning) }

    /// A household's clock, for what members of its socket group (`nogroup`, with Debian's
    /// `nobody` in it) and strangers may and may not do: Saturday 2026-11-21 10:00, one alarm,
    /// 06:45 on weekdays. Its tests change nothing.
    nonisolated(unsafe) static let household = start {
        let daemon = try DaemonHarness(now: CLITourTests.saturdayMorning, arguments: ["--socket-group", "nogroup"])
        guard try daemon.cli("alarm", "add", "6:45", "--days", "mon-fri").status == 0 else {
            throw CocoaError(.featureUnsupported)
        }
        return daemon
    }

    private static func start(_ make: () throws -> DaemonHarness) -> DaemonHarness {
        let daemon: DaemonHarness
        do {
            daemon = try make()
        } catch {
            fatalError("a shared daemon did not start: \(error)")
        }
        let root = daemon.root
        stops.withLock { $0.append((daemon, root)) }
        return daemon
    }

    private static let stops: Mutex<[(DaemonHarness, URL)]> = {
        atexit {
            for (daemon, root) in SharedDaemon.stops.withLock({ $0 }) {
                daemon.stop()
                try? FileManager.default.removeItem(at: root)
            }
        }
        return Mutex([])
    }()
}

/// The daemon under test, spawned and reaped here rather than by Foundation's `Process`. A start
/// again in place (SIGHUP) closes every descriptor the daemon inherited; Foundation takes the close
/// of its watch on a child for the child's exit and then waits for that exit on the one thread that
/// reaps every child of the test process, so every other test's `reveille` would stall until this
/// daemon stopped. The daemon's standard output and error append to `output`; its signal mask and
/// dispositions are the defaults, whatever the spawning test thread blocks.
final class DaemonProcess: @unchecked Sendable {
    let processIdentifier: pid_t
    private let state = Mutex<Int32?>(nil)

    init(_ executable: String, _ arguments: [String], environment: [String: String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process's: a file another test holds open at that moment (a
        // `status --watch` capture) would otherwise be the daemon's too, and read as its leak.
        RV_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw HarnessError("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        processIdentifier = pid
    }

    deinit {
        if isRunning {
            kill(processIdentifier, SIGKILL)
            waitUntilExit()
        }
    }

    var isRunning: Bool {
        reap(blocking: false)
        return state.withLock { $0 } == nil
    }

    /// The exit status, or the signal that ended it, as Foundation's `Process` gives them.
    var terminationStatus: Int32 {
        guard let status = state.withLock({ $0 }) else { return -1 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    func terminate() { kill(processIdentifier, SIGTERM) }

    func waitUntilExit() { reap(blocking: true) }

    private func reap(blocking: Bool) {
        guard state.withLock({ $0 }) == nil else { return }
        var status: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
        } while result < 0 && errno == EINTR
        if result == processIdentifier { state.withLock { $0 = status } }
    }
}
