import Foundation
import Glibc
import ReveilleProtocol

extension ResourceUse {
    /// This process's use, from getrusage(RUSAGE_SELF) (every thread, including those that ended)
    /// and /proc/self/status (RSS split into anonymous and file-backed, and its peak: VmHWM, not
    /// ru_maxrss, which keeps the peak of the process before exec — its parent's, after a fork).
    static func current() -> ResourceUse {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec
            + usage.ru_stime.tv_usec
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func kilobytes(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return ResourceUse(
            cpuMicroseconds: cpu, wakeups: usage.ru_nvcsw, preemptions: usage.ru_nivcsw,
            peakRSSKilobytes: kilobytes("VmHWM"), rssKilobytes: kilobytes("VmRSS"),
            anonymousKilobytes: kilobytes("RssAnon"))
    }
}
