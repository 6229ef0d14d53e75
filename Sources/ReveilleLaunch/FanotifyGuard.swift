import CReveilleShims
import Dispatch
import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleConfig
import Logging
import ReveilleCore
import ReveilleSystem
import Synchronization

/// Blocks launches with the kernel's fanotify permission events, on a thread of its own that does
/// nothing else (a slow answer is a slow launch). Execs on whole file systems (FAN_MARK_FILESYSTEM,
/// so that a copy of a program anywhere on them is seen), and opens of chosen files (a script read
/// by its interpreter), wait until `decide` answers. Needs CAP_SYS_ADMIN and a kernel with
/// CONFIG_FANOTIFY_ACCESS_PERMISSIONS; `init` fails with the errno otherwise.
public final class FanotifyGuard: Sendable {
    private let fd: Int32
    private let marks = Mutex(Marks())
    private let logger: Logger
    /// Rung by `stop` (eventfd).
    /// Wakes the thread to stop (an eventfd).
    private let stopper: Descriptor
    private var stopFD: Int32 { stopper.raw }
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    /// Signalled by the thread as it ends.
    private let finished = DispatchSemaphore(value: 0)
    /// CLOCK_MONOTONIC nanoseconds at which the thread began answering what it is answering now;
    /// 0 while it waits for events. Read by the watchdog.
    private let answeringSince = Atomic<UInt64>(0)
    /// A monotonic timerfd armed for `stallSeconds` while the thread answers, disarmed when it is
    /// done: it becomes readable only when the guard is stuck. The daemon's loop watches it, so
    /// noticing a stall costs no periodic wake-up.
    private let stallClock: Descriptor
    /// A monotonic timerfd armed while an exec is being decided: the loop watches it.
    public var stallTimer: Int32 { stallClock.raw }
    public let stallSeconds: Double

    struct Marks {
        var filesystems: [Mount] = []
        var opens: Set<String> = []
        /// CLOCK_BOOTTIME seconds just before the guard last began watching a file system it did
        /// not watch: an exec begun before then may show only its second half.
        var grewAt: Double?
    }

    /// What the kernel is waiting on: an exec of, or (`exec` false) an open of, the file open as
    /// `fd`, by `pid`.
    public struct Event {
        public let fd: Int32
        public let pid: Int32
        public let exec: Bool

        /// The file's path now, for the log only: decisions never depend on it.
        public var path: String { FanotifyGuard.path(of: fd) }
    }

    /// RV_fanotify_open: fanotify_init for permission events.
    public init(logger: Logger, stallSeconds: Double = 5) throws(SystemCallError) {
        stopper = try Descriptor.open("eventfd", "app guard") { RV_eventfd() }
        stallClock = try Descriptor.open("timerfd_create", "app guard") { RV_timerfd_monotonic() }
        let fd = RV_fanotify_open()
        guard fd >= 0 else {
            let code = errno
            let reason: String? =
                switch code {
                case EPERM: "needs root (CAP_SYS_ADMIN)"
                case EINVAL, ENOSYS: "the kernel lacks fanotify permission events"
                default: nil
                }
            throw SystemCallError("fanotify_init", "", errno: code, reason: reason)
        }
        self.fd = fd
        self.logger = logger
        self.stallSeconds = stallSeconds
    }

    /// The fanotify descriptor is closed here, or earlier by `close()` (at a moment that matters:
    /// before the daemon executes itself again); the others as their `Descriptor`s go.
    deinit {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { _ = Glibc.close(fd) }
    }

    /// Ends the thread after the events it is answering.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        var one: UInt64 = 1
        // EAGAIN: the counter is already non-zero, the thread is woken anyway.
        _ = write(stopFD, &one, 8)
    }

    /// Stops the thread, waits for it, and closes the fanotify descriptor: the kernel then allows
    /// whatever waited, and no exec waits for this guard again. Before the daemon executes itself
    /// again: that exec would otherwise wait for an answer from the very process making it.
    public func close() {
        stop()
        if running.load(ordering: .acquiring) { finished.wait() }
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { Glibc.close(fd) }
    }

    /// Watches execs on each of `filesystems` (a file system mark, or a mount mark where the file
    /// system refuses one) and stops watching the ones no longer given. New marks are added before
    /// old ones go, so that nothing is unwatched in between. Returns the mount points that could
    /// not be marked, with why.
    @discardableResult
    public func watchExecs(on filesystems: [Mount]) -> [String: String] {
        var failures: [String: String] = [:]
        var done: [Mount] = []
        marks.withLock { marks in
            let watched = Set(marks.filesystems.map(\.device))
            if filesystems.contains(where: { !watched.contains($0.device) }) { marks.grewAt = Monotonic.bootSeconds() }
        }
        for mount in filesystems {
            if RV_fanotify_mark_filesystem_exec(fd, mount.mountPoint) == 0
                || RV_fanotify_mark_mount_exec(fd, mount.mountPoint) == 0
            {
                done.append(mount)
            } else {
                failures[mount.mountPoint] = String(cString: strerror(errno))
            }
        }
        let gone = marks.withLock { marks in
            let gone = marks.filesystems.filter { old in !done.contains { $0.device == old.device } }
            marks.filesystems = done
            return gone
        }
        // By path, so only while the path still lies on that file system: once unmounted, the
        // path names the file system below, whose mark must stay (the kernel drops the marks of a
        // file system that is gone).
        for mount in gone where Mounts.device(of: mount.mountPoint) == mount.device {
            RV_fanotify_unmark_exec(fd, mount.mountPoint)
        }
        return failures
    }

    /// Watches every open of each of `paths`' inodes (any of their names), and no others.
    /// Returns the paths that could not be marked, with why.
    @discardableResult
    public func watchOpens(of paths: Set<String>) -> [String: String] {
        var failures: [String: String] = [:]
        var done: Set<String> = []
        for path in paths {
            if RV_fanotify_mark_open(fd, path) == 0 {
                done.insert(path)
            } else {
                failures[path] = String(cString: strerror(errno))
            }
        }
        let gone = marks.withLock { marks in
            let gone = marks.opens.subtracting(done)
            marks.opens = done
            return gone
        }
        for path in gone { _ = RV_fanotify_unmark_open(fd, path) }
        return failures
    }

    /// The file systems whose execs are watched.
    public var watchedFilesystems: [Mount] { marks.withLock { $0.filesystems } }

    /// When the guard last began watching more file systems (CLOCK_BOOTTIME seconds), nil: never.
    public var watchGrewAt: Double? { marks.withLock { $0.grewAt } }

    /// How long the thread has been answering one batch of events, in seconds (0 while it waits):
    /// an exec waits that long.
    public func answeringFor(now: UInt64 = FanotifyGuard.monotonicNanoseconds()) -> Double {
        let since = answeringSince.load(ordering: .acquiring)
        guard since != 0, now > since else { return 0 }
        return Double(now - since) / 1e9
    }

    public static func monotonicNanoseconds() -> UInt64 { Monotonic.nanoseconds() }

    /// Answers events on a thread of its own: `decide(event)` true allows.
    public func start(decide: @escaping @Sendable (Event) -> Bool) {
        running.store(true, ordering: .releasing)
        Threads.start("app-guard") { [self] in
            loop(decide)
            finished.signal()
        }
    }

    private func loop(_ decide: @Sendable (Event) -> Bool) {
        var events = [RV_exec_event](repeating: RV_exec_event(), count: 256)
        var descriptors = [fd, stopFD].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while !stopping.load(ordering: .acquiring) {
            descriptors[0].revents = 0
            guard poll(&descriptors, 2, -1) > 0, descriptors[0].revents != 0 else { continue }
            _ = answer(&events, decide)
        }
    }

    /// Reads and answers the events waiting (none: returns 0 at once); the stall timer runs
    /// meanwhile.
    private func answer(_ events: inout [RV_exec_event], _ decide: @Sendable (Event) -> Bool) -> Int {
        var unanswered: Int32 = 0
        let count = RV_fanotify_read(fd, &events, Int32(events.count), &unanswered)
        if count < 0 {
            logger.error("app guard: reading fanotify events failed: \(String(cString: strerror(errno)))")
            return 0
        }
        if unanswered > 0 {
            logger.error(
                "app guard: \(unanswered) event(s) past the batch could not be allowed (fanotify write failed); they wait until the guard restarts"
            )
        }
        guard count > 0 else { return 0 }
        answeringSince.store(FanotifyGuard.monotonicNanoseconds(), ordering: .releasing)
        let whole = Int64(stallSeconds)
        RV_timerfd_arm_relative(stallTimer, whole, Int((stallSeconds - Double(whole)) * 1e9), 0)
        defer {
            answeringSince.store(0, ordering: .releasing)
            RV_timerfd_arm_relative(stallTimer, 0, 0, 0)
        }
        for event in events.prefix(Int(count)) {
            let allow = decide(Event(fd: event.fd, pid: event.pid, exec: event.exec != 0))
            if RV_fanotify_respond(fd, event.fd, allow ? 1 : 0) != 0 {
                // The exec waits until the kernel hears an answer: say so loudly.
                logger.critical(
                    "app guard: answering the kernel for pid \(event.pid) failed: \(String(cString: strerror(errno)))"
                )
            }
        }
        return Int(count)
    }

    /// The file an event's descriptor is open on: readlink of /proc/self/fd/N.
    static func path(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// When a process started: CLOCK_BOOTTIME seconds, in whole clock ticks (field 22 of
/// /proc/PID/stat, after the name in parentheses, which may hold spaces and parentheses itself).
public enum ProcessStart {
    public static func bootSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let nameEnd = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        // fields[0] is field 3 (the state); field 22 is fields[19].
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Who runs a process: its real uid (from /proc/PID/status) and user name (looked up once per uid).
public enum ProcessOwner {
    private static let names = Mutex<[UInt32: String]>([:])

    public static func user(of pid: Int32) -> String {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
            let uid = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) })
        else { return "?" }
        if let known = names.withLock({ $0[uid] }) { return known }
        let name = name(of: uid)
        names.withLock { $0[uid] = name }
        return name
    }

    /// The people who use the machine (`LoginAccounts`): root and system accounts are not people.
    public static func isPerson(uid: UInt32) -> Bool { LoginAccounts.isPerson(uid: uid) }

    /// `isPerson(uid:)` for a user name (a number is taken as a UID); unknown names are not people.
    public static func isPerson(name: String) -> Bool { LoginAccounts.isPerson(name: name) }

    public static func name(of uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return String(uid) }
        return String(cString: name)
    }
}
