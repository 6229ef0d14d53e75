import FoundationEssentials
import ReveilleCore
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
        /// A field of /proc/self/status: kilobytes, or a count.
        func number(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
        }
        var use = ResourceUse(
            cpuMicroseconds: cpu, wakeups: usage.ru_nvcsw, preemptions: usage.ru_nivcsw,
            peakRSSKilobytes: number("VmHWM"), rssKilobytes: number("VmRSS"),
            anonymousKilobytes: number("RssAnon"))
        let handles = Handles.count()
        use.openDescriptors = handles.descriptors
        use.inotifyWatches = handles.inotifyWatches
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            use.descriptorLimit = Int(clamping: limit.rlim_cur)
        }
        use.inotifyWatchLimit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))
            .flatMap { Int($0.trimmed()) }
        use.threads = number("Threads")
        return use
    }
}

/// What the daemon holds open, from /proc/self: what must stay flat over months (docs/ARCHITECTURE.md).
enum Handles {
    /// Open descriptors of `process` (`self`, or a pid), and the watches of its inotify
    /// descriptors (the `inotify wd:` lines of their fdinfo).
    static func count(of process: String = "self") -> (descriptors: Int, inotifyWatches: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd")) ?? []
        var watches = 0
        for name in names {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/fd/" + name),
                target == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/\(process)/fdinfo/" + name, encoding: .utf8)
            else { continue }
            watches += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        // Of its own: less the descriptor of the listing itself.
        return (process == "self" ? max(0, names.count - 1) : names.count, watches)
    }
}
