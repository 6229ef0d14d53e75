import Foundation
import Glibc
import Logging
import ReveilleCore

/// Runs the hooks (SPEC §3): every executable file in the hooks folder, in name order, for every
/// event, with the event in the environment. Each runs detached from the ring, with a time limit;
/// what it prints is logged. A hook that is missing, fails or hangs never touches the ring.
///
/// Environment: `REVEILLE_EVENT` (fire, snooze, dismiss, missed, auto-stop), `REVEILLE_ALARM_ID`,
/// `REVEILLE_ALARM_LABEL`, `REVEILLE_SESSION_ID`, `REVEILLE_SNOOZES`, `REVEILLE_SCHEDULED_AT`
/// (seconds since the epoch).
struct HookRunner: Sendable {
    let directory: String
    let timeLimit: TimeInterval
    let logger: Logger

    init(directory: String, timeLimit: TimeInterval = 30, logger: Logger) {
        self.directory = directory
        self.timeLimit = timeLimit
        self.logger = logger
    }

    /// The executables in the folder, in name order; none when the folder does not exist.
    var hooks: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().map { directory + "/" + $0 }.filter { path in
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
        }
    }

    func run(_ event: HookEvent, for session: RingSession) {
        let environment = [
            "REVEILLE_EVENT": event.rawValue, "REVEILLE_ALARM_ID": String(session.settings.alarmID),
            "REVEILLE_ALARM_LABEL": session.settings.label, "REVEILLE_SESSION_ID": String(session.id),
            "REVEILLE_SNOOZES": String(session.snoozeCount), "REVEILLE_SCHEDULED_AT": String(session.scheduledAt),
        ]
        for hook in hooks {
            let thread = Thread { runOne(hook, event: event, environment: environment) }
            thread.name = "hook"
            thread.start()
        }
    }

    private func runOne(_ path: String, event: HookEvent, environment: [String: String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            logger.warning("hook \(path) (\(event.rawValue)) could not start: \(error)")
            return
        }
        let limit = DispatchWorkItem { [timeLimit] in
            guard process.isRunning else { return }
            logger.warning("hook \(path) (\(event.rawValue)) ran past \(Int(timeLimit)) s; stopping it")
            kill(process.processIdentifier, SIGTERM)
            Thread.sleep(forTimeInterval: 2)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: limit)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        limit.cancel()
        let printed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let status = process.terminationStatus
        logger.log(
            level: status == 0 ? .info : .warning,
            "hook \(path) (\(event.rawValue)) exited \(status)\(printed.isEmpty ? "" : ": \(printed.prefix(2000))")")
    }
}
