import CReveilleShims
import Foundation
import Glibc
import Logging
import Synchronization

/// Blocks launches with the kernel's fanotify permission events: every exec of a marked
/// executable waits until `decide` answers, on a thread of its own that does nothing else (a
/// slow answer is a slow launch). Needs CAP_SYS_ADMIN and a kernel with
/// CONFIG_FANOTIFY_ACCESS_PERMISSIONS; `init` fails with the errno otherwise.
public final class FanotifyGuard: Sendable {
    private let fd: Int32
    private let marked = Mutex<[String]>([])
    private let logger: Logger
    /// Rung by `stop` (eventfd).
    private let stopFD: Int32
    private let stopping = Atomic<Bool>(false)

    /// RV_fanotify_open: fanotify_init for permission events.
    public init(logger: Logger) throws(GuardError) {
        let fd = RV_fanotify_open()
        guard fd >= 0 else { throw GuardError(function: "fanotify_init", errno: errno) }
        self.fd = fd
        self.logger = logger
        self.stopFD = RV_eventfd()
    }

    deinit {
        close(fd)
        if stopFD >= 0 { close(stopFD) }
    }

    /// Ends the thread after the events it is answering.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(stopFD, &one, 8)
    }

    /// Replaces the marks with one per path (resolved through symlinks: the mark is on the file).
    /// Returns the paths that could not be marked, with why.
    @discardableResult
    public func mark(_ paths: [String]) -> [String: String] {
        RV_fanotify_flush(fd)
        var failures: [String: String] = [:]
        var done: [String] = []
        for path in paths {
            if RV_fanotify_mark_exec(fd, path) == 0 {
                done.append(path)
            } else {
                failures[path] = String(cString: strerror(errno))
            }
        }
        marked.withLock { $0 = done }
        return failures
    }

    public var markedPaths: [String] { marked.withLock { $0 } }

    /// Answers events on a thread of its own: `decide(executable path, pid)` true allows.
    public func start(decide: @escaping @Sendable (String, Int32) -> Bool) {
        let thread = Thread { [self] in loop(decide) }
        thread.name = "app-guard"
        thread.start()
    }

    private func loop(_ decide: @Sendable (String, Int32) -> Bool) {
        var events = [RV_exec_event](repeating: RV_exec_event(), count: 256)
        while !stopping.load(ordering: .acquiring) {
            var descriptors = [fd, stopFD].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, 2, -1) > 0, descriptors[0].revents != 0 else { continue }
            let count = RV_fanotify_read(fd, &events, Int32(events.count))
            if count < 0 {
                logger.error("app guard: reading fanotify events failed: \(String(cString: strerror(errno)))")
                continue
            }
            for event in events.prefix(Int(count)) {
                let path = FanotifyGuard.path(of: event.fd)
                let allow = decide(path, event.pid)
                if RV_fanotify_respond(fd, event.fd, allow ? 1 : 0) != 0 {
                    // The exec waits until the kernel hears an answer: say so loudly.
                    logger.critical(
                        "app guard: answering the kernel for \(path) (pid \(event.pid)) failed: \(String(cString: strerror(errno)))"
                    )
                }
            }
        }
    }

    /// The file an event's descriptor is open on: readlink of /proc/self/fd/N.
    static func path(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

public struct GuardError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let errno: Int32

    public var description: String {
        switch errno {
        case EPERM: "\(function): needs root (CAP_SYS_ADMIN)"
        case EINVAL, ENOSYS: "\(function): the kernel lacks fanotify permission events"
        default: "\(function): \(String(cString: strerror(errno)))"
        }
    }
}

/// Who runs a process: its real uid (from /proc/PID/status) and user name.
public enum ProcessOwner {
    public static func user(of pid: Int32) -> String {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
            let uid = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) })
        else { return "?" }
        return name(of: uid)
    }

    public static func name(of uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return String(uid) }
        return String(cString: name)
    }
}
