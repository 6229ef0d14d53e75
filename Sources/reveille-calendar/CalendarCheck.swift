import Foundation
import ReveilleCore
import ReveilleProtocol

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
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: body)
            try handle.close()
        } catch {
            return "cannot check it: \(error)"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = [
            "expand", path, "--from", "\(today)", "--through", "\(today.adding(days: 1))", "--zone", "UTC",
            "--cpu-seconds", "\(cpuSeconds)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "cannot check it: the calendar reader did not start (\(error))"
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            return signal == SIGXCPU || signal == SIGKILL
                ? "libical took more than \(cpuSeconds) s of CPU on it (a recurrence rule that never ends?); refused"
                : "the calendar reader stopped on signal \(signal) reading it; refused"
        }
        guard let reply = try? JSONDecoder().decode(CalendarExpansion.self, from: data) else {
            return "the calendar reader gave no answer (exit \(process.terminationStatus)); refused"
        }
        return reply.error.map { "\($0)" }
    }
}
