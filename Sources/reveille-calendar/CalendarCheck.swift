import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// Whether a fetched body is a calendar, asked of `reveille-calendar expand` in a child process:
/// there libical runs with no capability, 512 MiB and `cpuSeconds` of CPU (RLIMIT_CPU), so a
/// rule libical would iterate forever (`FREQ=SECONDLY;BYMONTHDAY=30;BYMONTH=2`) ends that child
/// and is reported, and the next calendar is fetched all the same.
struct CalendarCheck: Sendable {
    let cpuSeconds: Int

    /// nil when the body reads as a calendar; else why not, in words.
    func validate(_ body: Data, today: CivilDate) -> String? {
        let folder = FileManager.default.temporaryDirectory.path
        var template = Array((folder + "/reveille-calendar-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return "cannot check it: no temporary file (\(String(cString: strerror(errno))))" }
        let path = String(cString: template)
        defer { unlink(path) }
        var written = 0
        let bytes = Array(body)
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(fd)
                return "cannot check it: \(reason)"
            }
            written += max(0, count)
        }
        close(fd)
        let arguments = [
            "/proc/self/exe", "expand", path, "--from", "\(today)", "--through", "\(today.adding(days: 1))", "--zone",
            "UTC", "--cpu-seconds", "\(cpuSeconds)",
        ]
        let environment = ProcessInfo.processInfo.environment.map { "\($0)=\($1)" }
        let child: SpawnedChild
        do {
            child = try SpawnedChild(arguments, environment: environment, errorsToOutput: false)
        } catch {
            return "cannot check it: the calendar reader did not start (\(error.reason))"
        }
        let (data, exit, signal) = child.readToEnd()
        if let signal {
            return signal == SIGXCPU || signal == SIGKILL
                ? "libical took more than \(cpuSeconds) s of CPU on it (a recurrence rule that never ends?); refused"
                : "the calendar reader stopped on signal \(signal) reading it; refused"
        }
        guard let reply = try? JSONDecoder().decode(CalendarExpansion.self, from: Data(data)) else {
            return "the calendar reader gave no answer (exit \(exit ?? -1)); refused"
        }
        return reply.error.map { "\($0)" }
    }
}
