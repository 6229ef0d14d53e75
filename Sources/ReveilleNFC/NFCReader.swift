import CReveilleShims
import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleSystem
import Synchronization

/// The reader service: a thread of its own that opens the device, polls for tags while someone
/// needs them (a ringing alarm, a registration, `tag test`) and sleeps otherwise, publishes each
/// tag once (debounced), and reopens a device that fails or disappears, with backoff.
///
/// Idle, it touches the device only to check its health every `idleCheckSeconds`, so that the
/// daemon's idle figure holds; the chip's RF field is off meanwhile (nfc_idle).
public final class NFCReader: TagReader, Sendable {
    /// What to open: a libnfc connstring, or nil for libnfc's autodetection.
    public let connstring: String?
    let pollInterval: Double
    let idleCheckSeconds: Double
    private let logger: Logger
    /// Why tags are wanted now (a ring, a registration), and whether the thread must end.
    private let control = Mutex<(reasons: Set<String>, stopping: Bool, check: Bool)>(([], false, false))
    /// Rung (eventfd) when `control` changes, to wake the thread from its sleep.
    private let bell: Descriptor?
    private let healthState: Mutex<ReaderHealth>
    /// An eventfd written at each change of health (`waitForHealth`).
    private let firstHealth: Descriptor?
    private let handlers = Mutex<Handlers>(Handlers())

    private struct Handlers {
        var onTag: (@Sendable ([UInt8], Bool) -> Void)?
        var onLifted: (@Sendable () -> Void)?
        var onHealth: (@Sendable (ReaderHealth) -> Void)?
    }

    /// - Parameter pollInterval: the pause between two polls while a tag is wanted. Short: it is
    ///   most of the time from a tap to the alarm stopping (BENCHMARKS.md), and only spent while
    ///   an alarm rings or a registration waits.
    public init(connstring: String?, pollInterval: Double = 0.002, idleCheckSeconds: Double = 600, logger: Logger) {
        self.connstring = connstring
        self.pollInterval = pollInterval
        self.idleCheckSeconds = idleCheckSeconds
        self.logger = logger
        self.healthState = Mutex(NFCReader.opening)
        // Without an eventfd (out of descriptors) the reader still works: it polls on its own
        // schedule, and the start-up does not wait for its first health.
        self.bell = try? Descriptor.open("eventfd", "NFC reader") { RV_eventfd() }
        self.firstHealth = try? Descriptor.open("eventfd", "NFC reader") { RV_eventfd() }
    }

    /// Waits, without spinning, until the reader knows its health (opened, or failed to), for at
    /// most `seconds`: at start, so that an alarm due then sees the reader.
    public func waitForHealth(within seconds: Double) {
        guard let firstHealth, health == NFCReader.opening else { return }
        var poller = pollfd(fd: firstHealth.raw, events: Int16(POLLIN), revents: 0)
        let deadline = Monotonic.seconds() + seconds
        while health == NFCReader.opening {
            let left = deadline - Monotonic.seconds()
            guard left > 0 else { return }
            if poll(&poller, 1, Int32((left * 1000).rounded(.up))) < 0 && errno != EINTR { return }
        }
    }

    private func ring() {
        var one: UInt64 = 1
        if let bell { _ = write(bell.raw, &one, 8) }  // EAGAIN: already rung
    }

    /// Starts the thread: `onTag` gets each tag placed on the reader and whether it is fresh (see
    /// `TagEvent`), `onLifted` each time it leaves, `onHealth` each change of health; all on the
    /// reader's thread.
    public func start(
        onTag: @escaping @Sendable ([UInt8], Bool) -> Void, onLifted: @escaping @Sendable () -> Void = {},
        onHealth: @escaping @Sendable (ReaderHealth) -> Void
    ) {
        handlers.withLock {
            $0.onTag = onTag
            $0.onLifted = onLifted
            $0.onHealth = onHealth
        }
        Threads.start("nfc") { [self] in run() }
    }

    public func stop() {
        control.withLock { $0.stopping = true }
        ring()
    }

    public var health: ReaderHealth { healthState.withLock { $0 } }

    /// The device's node came or went (the daemon watches it: `devicePath`): the idle thread looks
    /// at once, instead of at its next idle check, so that an unplugged reader is known when it
    /// was unplugged (and a ring's record says how long before it), with no wake-up while idle.
    public func checkNow() {
        control.withLock { $0.check = true }
        ring()
    }

    /// The device node a connstring names (`pn532_uart:/dev/ttyUSB0`, `pn532_i2c:/dev/i2c-1`, with
    /// an optional `:115200`), to watch for its coming and going; nil for USB readers and
    /// autodetection.
    public static func devicePath(_ connstring: String?) -> String? {
        guard let connstring, let colon = connstring.firstIndex(of: ":") else { return nil }
        let rest = connstring[connstring.index(after: colon)...]
        guard rest.hasPrefix("/") else { return nil }
        let path = rest.split(separator: ":", maxSplits: 1).first.map(String.init) ?? String(rest)
        return path.count > 1 ? path : nil
    }

    /// The health before the first attempt to open the device.
    public static let opening = ReaderHealth.absent("not opened yet")

    /// Polls fast while any reason is active (several may overlap: a ring and a `tag test`).
    public func setPolling(_ reason: String, _ active: Bool) {
        control.withLock { if active { $0.reasons.insert(reason) } else { $0.reasons.remove(reason) } }
        ring()
    }

    private var label: String { connstring ?? "auto" }

    private func setHealth(_ health: ReaderHealth) {
        let changed = healthState.withLock { current -> Bool in
            defer { current = health }
            return current != health
        }
        guard changed else { return }
        var one: UInt64 = 1
        if let firstHealth { _ = write(firstHealth.raw, &one, 8) }  // wakes `waitForHealth`; stays readable after
        switch health {
        case .ok: logger.notice("NFC reader: \(health)")
        default: logger.warning("NFC reader: \(health)")
        }
        handlers.withLock { $0.onHealth }?(health)
    }

    /// Sleeps up to `seconds`, or until polling is wanted (when `untilActive`) or stopping.
    /// Returns whether polling is wanted.
    /// poll(2) on the bell, which `setPolling` and `stop` ring.
    private func sleep(_ seconds: Double, untilActive: Bool) -> Bool {
        let deadline = Deadline(in: seconds)
        while true {
            let (wanted, stopping, check) = control.withLock { state in
                defer { state.check = false }
                return (!state.reasons.isEmpty, state.stopping, state.check)
            }
            if stopping || (untilActive && wanted) || check { return wanted }
            guard !deadline.hasPassed else { return wanted }
            let milliseconds = deadline.pollMilliseconds
            // Without a bell (no eventfd), poll ignores the negative descriptor: a plain sleep.
            var descriptor = pollfd(fd: bell?.raw ?? -1, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(clamping: max(1, milliseconds))) > 0, let bell {
                var scratch: UInt64 = 0
                _ = read(bell.raw, &scratch, 8)  // EAGAIN: another thread took the ring; either way it is heard
            }
        }
    }

    private var isStopping: Bool { control.withLock { $0.stopping } }

    private var wanted: Bool { control.withLock { !$0.reasons.isEmpty } }

    private func run() {
        var device: NFCDevice?
        var backoff = Backoff()
        var debouncer = TagDebouncer()
        var polling = false
        while !isStopping {
            if device == nil {
                do {
                    device = try NFCDevice(connstring: connstring)
                    backoff.reset()
                    debouncer.reopened()
                    setHealth(.ok(device!.name))
                } catch {
                    setHealth(error.absent ? .absent(error.message + " (\(label))") : .failing("\(error)"))
                    let delay = backoff.next()
                    if wanted { logger.info("NFC reader: trying again in \(Int(delay)) s") }
                    // Idle, a missing reader is looked for at the idle check's pace.
                    _ = sleep(wanted ? delay : idleCheckSeconds, untilActive: !wanted)
                    continue
                }
            }
            guard let open = device else { continue }
            if !wanted {
                if polling {
                    open.idle()
                    polling = false
                    debouncer.reset()
                }
                if sleep(idleCheckSeconds, untilActive: true) { continue }
                // The idle health check: one poll, RF on only for it.
                do {
                    _ = try open.poll()
                    open.idle()
                } catch {
                    logger.warning("NFC reader: \(error); reopening")
                    device = nil
                }
                continue
            }
            polling = true
            do {
                let uid = try open.poll()
                for event in debouncer.seen(uid) {
                    switch event {
                    case .placed(let tag, let fresh):
                        logger.info("NFC reader: tag \(UID.hex(tag)) \(fresh ? "placed" : "lying on the reader")")
                        handlers.withLock { $0.onTag }?(tag, fresh)
                    case .lifted:
                        logger.debug("NFC reader: tag lifted")
                        handlers.withLock { $0.onLifted }?()
                    }
                }
                _ = sleep(pollInterval, untilActive: false)
            } catch {
                logger.warning("NFC reader: \(error); reopening")
                device = nil
                polling = false
                setHealth(.failing("\(error)"))
            }
        }
    }
}
