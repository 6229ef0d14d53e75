import CReveilleShims
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem
import Synchronization

/// What a thread of its own (the NFC reader, a sound test, the app guard) tells the loop. Plain
/// data: the loop thread alone acts on it.
enum LoopEvent: Sendable {
    /// The reader saw a tag: `fresh` when it was placed while polling, not lying there already.
    case tagPlaced(uid: [UInt8], fresh: Bool)
    case tagLifted
    case readerHealth(ReaderHealth)
    /// No sound device plays the alarm (true), or one does again (false).
    case soundSilent(Bool)
    /// A `sound test` has its first frame out (or every device failed): answer connection `id`.
    case reply(connection: Int, Response)
    /// An app's time runs out soon (`chimeSecondsLeft`: at the bedside too), or it was refused.
    case appNotice(AppNotice, chimeSecondsLeft: Int?)
    /// A process started as a listed app: follow its pidfd on the loop.
    case appFollowed(pid: Int32, pidfd: Descriptor)
    /// A reminder's `--unless` command ended: `skip` when it exited 0.
    case chimeChecked(key: String, skip: Bool, detail: String)
    /// The calendar loader read every calendar.
    case calendarsRead([Calendars.Entry])
    /// The calendar loader checked the file of a `calendar add` parked on connection `connection`.
    case calendarChecked(connection: Int, CalendarAddition)
    /// Something changed in the folder of a calendar file (from its inotify watch, on the loop).
    case calendarFolderChanged(String)
    /// apps.toml was read and checked after a change (`number`: which read).
    case appPolicyRead(AppSupervisor.FileRead, number: Int)
    /// A `wifi join` ended (answer connection `connection`): joined `network` at `address`, or not
    /// (nil), which the set-up network's keeper says aloud.
    case wifiJoined(connection: Int, Response, network: String?, address: String?)
    /// The set-up network opened (with what the radio heard before), or could not.
    case setupNetworkOpened(name: String, Result<[HeardNetwork], WifiFailure>)
}

/// How other threads reach the loop: an eventfd and a queue of events.
final class Doorbell: Sendable {
    private let bell: Descriptor
    var fd: Int32 { bell.raw }
    private let queue = Mutex<[LoopEvent]>([])

    init() throws {
        bell = try Descriptor.open("eventfd", "event loop") { RV_eventfd() }
    }

    /// From any thread: queue `event` and wake the loop.
    func post(_ event: LoopEvent) {
        queue.withLock { $0.append(event) }
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop is woken anyway.
        _ = write(fd, &one, 8)
    }

    /// On the loop: everything posted so far, oldest first.
    func take() -> [LoopEvent] {
        var scratch: UInt64 = 0
        _ = read(fd, &scratch, 8)  // resets the counter; EAGAIN: a second wake-up found it reset
        return queue.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}

/// The daemon's one event loop: epoll over every descriptor that can wake it (timers, signals,
/// inotify, the doorbell, the control socket and its connections), each routed to its handler on
/// this one thread, as apple/containerization's vminitd `ProcessSupervisor` does. Handlers never
/// block; blocking C calls live on threads of their own and ring the doorbell.
///
/// Confined to the thread that calls `run`: not `Sendable`.
final class EventLoop {
    typealias Handler = (_ events: UInt32) -> Void

    private let poller: Descriptor
    /// Each watched descriptor's handler, with the generation it was registered under. A descriptor
    /// closed and reused within one batch of events gets a new generation: an event left for the
    /// old registration is dropped, never handed to the new one (as containerization's
    /// `ProcessSupervisor` does).
    private var handlers: [Int32: (generation: UInt32, handler: Handler)] = [:]
    private var nextGeneration: UInt32 = 1
    private var running = false
    /// Why `run` returned on its own: the loop could not wait any more.
    private(set) var failure: SystemCallError?
    private let logger: Logger

    // <sys/epoll.h>'s EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP.
    static let readable: UInt32 = 0x001
    static let writable: UInt32 = 0x004
    static let hangUp: UInt32 = 0x008 | 0x010

    init(logger: Logger) throws {
        poller = try Descriptor.open("epoll_create1", "event loop") { RV_epoll_create() }
        self.logger = logger
    }

    private var epoll: Int32 { poller.raw }

    private static func tag(_ fd: Int32, _ generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    /// Calls `handler` on the loop whenever `fd` has `events`.
    func watch(_ fd: Int32, events: UInt32 = EventLoop.readable, _ handler: @escaping Handler) throws {
        let generation = nextGeneration
        nextGeneration &+= 1
        try systemCall("epoll_ctl(ADD)", "fd \(fd)") {
            RV_epoll_control(epoll, 0, fd, EventLoop.tag(fd, generation), events)
        }
        handlers[fd] = (generation, handler)
    }

    /// Changes which events of a watched `fd` wake the loop (EPOLLOUT while output waits).
    func change(_ fd: Int32, events: UInt32) {
        guard let generation = handlers[fd]?.generation else {
            logger.error("event loop: epoll_ctl(MOD) fd \(fd): not watched")
            return
        }
        if RV_epoll_control(epoll, 1, fd, EventLoop.tag(fd, generation), events) != 0 {
            logger.error("event loop: epoll_ctl(MOD) fd \(fd): \(String(cString: strerror(errno)))")
        }
    }

    /// Stops watching `fd` (before it is closed).
    func unwatch(_ fd: Int32) {
        guard handlers.removeValue(forKey: fd) != nil else { return }
        // ENOENT or EBADF would mean it was closed before: its events are gone with it.
        if RV_epoll_control(epoll, 2, fd, 0, 0) != 0, errno != ENOENT, errno != EBADF {
            logger.error("event loop: epoll_ctl(DEL) fd \(fd): \(String(cString: strerror(errno)))")
        }
    }

    /// Runs until `stop`, on the calling thread; `afterEvents` after each batch of events (what
    /// waits for the machine to reach a state, whichever event brought it there).
    func run(afterEvents: () -> Void = {}) {
        running = true
        var tags = [UInt64](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        while running {
            let count = RV_epoll_wait(epoll, &tags, &events, 64, -1)
            if count < 0 {
                if errno == EINTR { continue }
                // EBADF, EFAULT, EINVAL: the loop itself is broken and would only spin. Stop, so that
                // the daemon ends and systemd starts it again (Restart=always) with a new one.
                failure = SystemCallError("epoll_wait", "event loop")
                logger.critical("event loop: \(failure!); stopping so that a new start repairs it")
                return
            }
            for index in 0..<Int(count) {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: tags[index]))
                let generation = UInt32(truncatingIfNeeded: tags[index] >> 32)
                // A handler may have unwatched (or replaced) a descriptor later in this batch.
                guard let entry = handlers[fd], entry.generation == generation else { continue }
                entry.handler(events[index])
                if !running { break }
            }
            if running { afterEvents() }
        }
    }

    /// The loop returns after the handler that called this.
    func stop() { running = false }
}

/// A timerfd on the loop. Every arm is checked: a failed `timerfd_settime` is logged and retried
/// a second later on the monotonic clock, never lost — the one call an alarm clock must not lose.
final class LoopTimer {
    enum Kind {
        /// Wall-clock instants; wakes too when someone sets the clock (TFD_TIMER_CANCEL_ON_SET).
        case realtime
        /// Delays, unaffected by clock changes.
        case monotonic
    }

    private let timer: Descriptor
    var fd: Int32 { timer.raw }
    let kind: Kind
    private let logger: Logger

    init(_ kind: Kind, logger: Logger) throws {
        self.kind = kind
        self.logger = logger
        timer = try Descriptor.open("timerfd_create", "\(kind)") {
            kind == .realtime ? RV_timerfd_realtime() : RV_timerfd_monotonic()
        }
    }

    /// Realtime: fires at the system-clock instant `instant` (seconds since the epoch).
    /// Returns false when the kernel refused (logged); the caller keeps its fallback.
    @discardableResult
    func arm(atSystemInstant instant: Double) -> Bool {
        let seconds = instant.rounded(.down)
        let nanoseconds = Int((instant - seconds) * 1e9)
        guard RV_timerfd_arm_realtime(fd, Int64(seconds), nanoseconds) == 0 else {
            logger.error(
                "wake timer: timerfd_settime(\(Int64(seconds))): \(String(cString: strerror(errno))); looking again in 1 s"
            )
            return false
        }
        return true
    }

    /// Monotonic: fires after `seconds` (0: disarmed), repeating every `interval` seconds if given.
    @discardableResult
    func arm(after seconds: Double, interval: Double? = nil) -> Bool {
        let whole = seconds.rounded(.down)
        var nanoseconds = Int((seconds - whole) * 1e9)
        if whole == 0, nanoseconds == 0, seconds > 0 { nanoseconds = 1 }
        let intervalMS = interval.map { max(1, Int($0 * 1000)) } ?? 0
        guard RV_timerfd_arm_relative(fd, Int64(whole), nanoseconds, intervalMS) == 0 else {
            logger.error("timer: timerfd_settime: \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }

    /// Reads the expiry. Returns false when the read failed with ECANCELED: the clock was set.
    func acknowledge() -> Bool {
        var count: UInt64 = 0
        return !(read(fd, &count, 8) < 0 && errno == ECANCELED)
    }
}
