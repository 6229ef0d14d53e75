import CReveilleShims
import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleSystem
import Synchronization

/// Runs the hooks (docs/guide/ringing.md, "When an alarm rings"): every executable file in the hooks folder, in name order, for every
/// event, with the event in the environment. Each runs on a thread of its own with a time limit
/// (SIGTERM, then SIGKILL 2 s later), without the daemon's capabilities; what it prints is logged. A hook that is missing, fails or
/// hangs never touches the ring.
///
/// Environment: `REVEILLE_EVENT` (fire, snooze, dismiss, missed, auto-stop), `REVEILLE_ALARM_ID`,
/// `REVEILLE_ALARM_LABEL`, `REVEILLE_SESSION_ID`, `REVEILLE_SNOOZES`, `REVEILLE_SCHEDULED_AT`
/// (seconds since the epoch); when math stands in for a tag because no reader works,
/// `REVEILLE_FELL_BACK_TO_MATH=1`, `REVEILLE_READER_STATE` and, when the daemon saw the reader go,
/// `REVEILLE_READER_LOST_SECONDS` (how long before the ring); plus the daemon's own environment.
///
/// Started with posix_spawn rather than Foundation's Process, which would start libdispatch's
/// worker pool (see `Daemon`).
final class HookRunner: Sendable {
    let directory: String
    let timeLimit: Double
    let logger: Logger
    /// Hooks still running, stopped when the daemon stops.
    private let running = Mutex<Set<pid_t>>([])

    init(directory: String, timeLimit: Double = 30, logger: Logger) {
        self.directory = directory
        self.timeLimit = timeLimit
        self.logger = logger
    }

    /// The executables in the folder, in name order; none when the folder does not exist.
    var hooks: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().map { directory + "/" + $0 }.filter(RegularFile.isExecutable)
    }

    func run(_ event: HookEvent, for session: RingSession) {
        var environment = [
            "REVEILLE_EVENT": event.rawValue, "REVEILLE_ALARM_ID": String(session.settings.alarmID),
            "REVEILLE_ALARM_LABEL": session.settings.label, "REVEILLE_SESSION_ID": String(session.id),
            "REVEILLE_SNOOZES": String(session.snoozeCount), "REVEILLE_SCHEDULED_AT": String(session.scheduledAt),
        ]
        if session.fellBackToMath {
            environment["REVEILLE_FELL_BACK_TO_MATH"] = "1"
            environment["REVEILLE_READER_STATE"] = session.readerState ?? "not working"
            if let seconds = session.readerLostBeforeRing {
                environment["REVEILLE_READER_LOST_SECONDS"] = String(seconds)
            }
        }
        run(event, environment: environment)
    }

    /// Runs every hook for `event` with `environment` added to the daemon's.
    func run(_ event: HookEvent, environment: [String: String]) {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        for hook in hooks {
            Threads.start("hook") { [self] in runOne(hook, event: event, environment: merged) }
        }
    }

    /// Sends SIGTERM to every hook still running.
    func stopAll() {
        for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
    }

    private func runOne(_ path: String, event: HookEvent, environment: [String]) {
        _ = runBounded(
            Self.withoutCapabilities([path]), what: "hook \(path) (\(event.rawValue))", environment: environment)
    }

    /// `argv` as run without the daemon's capabilities (CAP_SYS_ADMIN, CAP_KILL, ambient under
    /// systemd, so passed on to what it executes): setpriv clears the ambient and inheritable sets,
    /// so the program it executes has none; NoNewPrivileges stops setuid. Unchanged when the daemon
    /// holds none.
    static func withoutCapabilities(_ argv: [String]) -> [String] {
        RV_effective_capabilities() == 0
            ? argv : ["/usr/bin/setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--"] + argv
    }

    /// Runs a reminder's `--unless` command through `/bin/sh -c` under the hooks' rules (time limit,
    /// no descriptors but its output, logged) on a thread of its own; `done` gets whether it exited 0
    /// and how it ended.
    func check(_ command: String, for text: String, done: @escaping @Sendable (Bool, String) -> Void) {
        let environment = ProcessInfo.processInfo.environment.merging(["REVEILLE_REMINDER": text]) { $1 }.map {
            "\($0)=\($1)"
        }
        // An admin set the command over the socket: it must not get the daemon's capabilities.
        let argv = Self.withoutCapabilities(["/bin/sh", "-c", command])
        Threads.start("unless") { [self] in
            let (status, detail) = runBounded(
                argv, what: "reminder \"\(text)\": --unless \(command)", environment: environment,
                failureLevel: .info)
            done(status == 0, detail)
        }
    }

    /// Spawns `argv` with stdin from /dev/null and stdout and stderr to a pipe, reads what it prints
    /// until it ends or its time is up (then SIGTERM, SIGKILL 2 s later), and logs how it ended.
    /// Returns its wait status (nil: it could not start) and how it ended, in words.
    private func runBounded(
        _ argv: [String], what: String, environment: [String], failureLevel: Logger.Level = .warning
    ) -> (Int32?, String) {
        let child: SpawnedChild
        do {
            child = try SpawnedChild(argv, environment: environment, errorsToOutput: true)
        } catch {
            let reason = "could not start: \(error.call == "pipe2" ? "no pipe: " : "")\(error.reason)"
            logger.warning("\(what) \(reason)")
            return (nil, reason)
        }
        let pid = child.pid
        running.withLock { _ = $0.insert(pid) }
        defer { running.withLock { _ = $0.remove(pid) } }

        // Read what it prints until it closes its output or its time is up.
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Deadline(in: timeLimit)
        var timedOut = false
        while true {
            guard !deadline.hasPassed else {
                timedOut = true
                break
            }
            var poller = pollfd(fd: child.output.raw, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, max(1, deadline.pollMilliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(child.output.raw, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }
            if output.count < 64 * 1024 { output.append(contentsOf: chunk[..<count]) }
        }
        if timedOut {
            logger.warning("\(what) ran past \(Int(timeLimit)) s; stopping it")
            _ = kill(pid, SIGTERM)  // ESRCH: it ended meanwhile, which is what is wanted
            for _ in 0..<20 where waitpid(pid, nil, WNOHANG) == 0 { usleep(100_000) }  // a hook's thread, not the loop
            _ = kill(pid, SIGKILL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? "exited \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)"
        let printed = String(decoding: output, as: UTF8.self).trimmed()
        logger.log(
            level: status == 0 ? .info : failureLevel,
            "\(what) \(exit)\(printed.isEmpty ? "" : ": \(printed.prefix(2000))")")
        return (status, exit)
    }
}
