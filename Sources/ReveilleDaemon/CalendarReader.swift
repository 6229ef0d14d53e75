import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleSystem
import ReveilleProtocol
import CReveilleShims

/// Reads a calendar file through `reveille-calendar expand`, a helper process with no capability
/// and bounded memory and CPU: iCalendar text, possibly from the web, is never parsed inside the
/// daemon, which holds CAP_SYS_ADMIN and does not link libical. Spawned with posix_spawn (not
/// Foundation's Process, which would start libdispatch's worker pool), nothing inherited but a
/// pipe for its answer.
struct CalendarReader {
    /// `reveille-calendar`: beside `reveilled` (both in PREFIX/bin, or .build/debug).
    let helper: String
    /// Longer than this and the helper is killed.
    var timeoutSeconds = 30.0
    /// Its answer may be this large at the most.
    var maxReplyBytes = 32 << 20

    static func besideDaemon() -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return PathName.folder(executable) + "/reveille-calendar"
    }

    func read(_ path: String, from first: CivilDate, through last: CivilDate, zone: Zone) -> Result<
        [CalendarOccurrence], CalendarError
    > {
        let arguments = [
            helper, "expand", path, "--from", first.description, "--through", last.description, "--zone",
            zone.identifier,
        ]
        switch run(arguments) {
        case .failure(let error):
            return .failure(error)
        case .success(let data):
            guard let reply = try? JSONDecoder().decode(CalendarExpansion.self, from: data) else {
                return .failure(CalendarError("the calendar reader answered nothing readable (\(data.count) bytes)"))
            }
            if let error = reply.error { return .failure(error) }
            return .success(reply.occurrences ?? [])
        }
    }

    private func run(_ arguments: [String]) -> Result<Data, CalendarError> {
        // The zone rules come from the same tzdata as the daemon's; nothing else of its environment.
        let environment =
            ["PATH=/usr/bin:/bin"] + (ProcessInfo.processInfo.environment["TZDIR"].map { ["TZDIR=\($0)"] } ?? [])
        let child: SpawnedChild
        do {
            child = try SpawnedChild(arguments, environment: environment, errorsToOutput: false)
        } catch {
            return .failure(
                CalendarError(
                    "cannot start the calendar reader\(error.call == "pipe2" ? ": no pipe" : " \(helper)"): \(error.reason)"
                ))
        }
        let pid = child.pid
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Deadline(in: timeoutSeconds)
        var failure: CalendarError?
        while true {
            guard !deadline.hasPassed else {
                failure = CalendarError("the calendar reader took longer than \(Int(timeoutSeconds)) s")
                break
            }
            var poller = pollfd(fd: child.output.raw, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, deadline.pollMilliseconds) >= 0 || errno == EINTR else { break }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(child.output.raw, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            data.append(contentsOf: chunk[..<count])
            if data.count > maxReplyBytes {
                failure = CalendarError("the calendar reader answered more than \(maxReplyBytes >> 20) MiB")
                break
            }
        }
        if failure != nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if let failure { return .failure(failure) }
        // Killed by its own limits (RLIMIT_CPU's SIGXCPU, or SIGKILL): say so rather than "nothing readable".
        if status & 0x7f != 0 {
            return .failure(
                CalendarError("the calendar reader was stopped by signal \(status & 0x7f) (too large a calendar?)"))
        }
        return .success(data)
    }
}
