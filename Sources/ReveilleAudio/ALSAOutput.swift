import Foundation
import Logging
import ReveilleCore
import Synchronization

/// Where and how sound is played, from the `[audio]` section of reveille.toml.
public struct AudioConfiguration: Sendable, Hashable {
    /// Devices tried in order; `default` is tried after them.
    public var devices: [String]
    /// The sound of alarms that name none; nil: the built-in tone.
    public var defaultSound: String?
    /// A mixer control to turn up at ring start.
    public var mixer: MixerSetting?
    /// After every device has failed, wait this long and try them all again.
    public var retrySeconds: Double

    public init(
        devices: [String] = [], defaultSound: String? = nil, mixer: MixerSetting? = nil, retrySeconds: Double = 5
    ) {
        self.devices = devices
        self.defaultSound = defaultSound
        self.mixer = mixer
        self.retrySeconds = retrySeconds
    }

    /// The devices in the order they are tried.
    public var candidates: [String] { devices.contains("default") ? devices : devices + ["default"] }
}

/// The real `AudioOutput`: alsa-lib's PCM API on a thread of its own (a plain thread, like the
/// daemon's others; see docs/ARCHITECTURE.md). Calls only post a request and return; the thread
/// opens the device, streams, falls back and retries. A newer request replaces the one playing.
///
/// Sendable by construction: what the callers and the thread share is in a `Mutex` or an atomic,
/// and the thread sleeps on a semaphore that every request signals (it re-checks the state after
/// each wake-up, so a signal it did not need costs one loop).
public final class ALSAOutput: AudioOutput, Sendable {
    let configuration: AudioConfiguration
    let logger: Logger
    private let shared = Mutex(Shared())
    /// Signalled by `play`, `stop` and `deliver`'s callers' successors: wakes the thread from
    /// waiting for work or from a pause.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The current request's number: the write loop reads it without locking.
    private let generation = Atomic<UInt64>(0)
    private let attenuatedFlag = Atomic<Bool>(false)
    private let status: Mutex<String>
    private let stopRequested = Mutex<ContinuousClock.Instant?>(nil)

    private struct Shared {
        var pending: Playback.Job?
        var reports: [UInt64: PlaybackReport] = [:]
        /// `playAndReport` callers waiting for their request's report, by request number.
        var waiting: [UInt64: DispatchSemaphore] = [:]

        /// Wakes the waiters of requests older than `number`: theirs will never come.
        mutating func releaseWaiters(before number: UInt64) {
            for (waiter, semaphore) in waiting where waiter < number { semaphore.signal() }
        }
    }

    public init(configuration: AudioConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.status = Mutex(ALSAOutput.idleLine(configuration))
        let thread = Thread { [self] in threadMain() }
        thread.name = "audio"
        thread.start()
    }

    public func play(_ request: AudioRequest) {
        _ = post(request, waiter: nil)
    }

    public func playAndReport(_ request: AudioRequest) -> PlaybackReport {
        let done = DispatchSemaphore(value: 0)
        let number = post(request, waiter: done)
        _ = done.wait(timeout: .now() + 20)
        let report = shared.withLock { shared in
            shared.waiting[number] = nil
            return shared.reports.removeValue(forKey: number)
        }
        return report
            ?? PlaybackReport(
                device: nil, source: request.sound ?? "the built-in tone", problems: ["stopped before it started"])
    }

    public func setAttenuated(_ attenuated: Bool) {
        attenuatedFlag.store(attenuated, ordering: .releasing)
        logger.info("sound: \(attenuated ? "lowered while the sleeper answers" : "back to full volume")")
    }

    public func stop() {
        stopRequested.withLock { $0 = .now }
        shared.withLock { shared in
            shared.pending = nil
            let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            shared.releaseWaiters(before: number)
        }
        wakeUp.signal()
    }

    public var statusLine: String { status.withLock { $0 } }

    private static func idleLine(_ configuration: AudioConfiguration) -> String {
        "idle; devices: " + configuration.candidates.joined(separator: ", ")
    }

    public func availableDevices() -> [AudioDevice] { DeviceList.playbackDevices() }

    /// Opens the file with libsndfile, as a ring would.
    public func problem(withSound path: String) -> String? {
        do {
            _ = try SoundFile(path: path)
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func post(_ request: AudioRequest, waiter: DispatchSemaphore?) -> UInt64 {
        let number = shared.withLock { shared in
            let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            attenuatedFlag.store(false, ordering: .releasing)
            shared.pending = Playback.Job(request: request, generation: number, postedAt: .now)
            shared.waiting[number] = waiter
            shared.releaseWaiters(before: number)
            return number
        }
        wakeUp.signal()
        return number
    }

    private func threadMain() {
        while true {
            guard let job = shared.withLock({ $0.pending.take() }) else {
                wakeUp.wait()
                continue
            }
            var playback = Playback(job: job, output: self)
            playback.run()
            status.withLock { $0 = ALSAOutput.idleLine(configuration) }
        }
    }

    // MARK: What a playback asks of its output

    func isCurrent(_ job: Playback.Job) -> Bool { generation.load(ordering: .acquiring) == job.generation }

    var attenuated: Bool { attenuatedFlag.load(ordering: .acquiring) }

    func setStatus(_ line: String) { status.withLock { $0 = line } }

    /// When `stop` was last called, to log how long stopping took.
    func takeStopRequest() -> ContinuousClock.Instant? { stopRequested.withLock { $0.take() } }

    func deliver(_ report: PlaybackReport, for job: Playback.Job) {
        shared.withLock { shared in
            shared.reports[job.generation] = report
            if shared.reports.count > 8 { shared.reports.removeValue(forKey: shared.reports.keys.min()!) }
            shared.waiting[job.generation]?.signal()
        }
    }

    /// Sleeps up to `seconds`, returning early when the job is replaced or stopped.
    func pause(_ job: Playback.Job, seconds: Double) {
        let deadline = DispatchTime.now() + seconds
        while isCurrent(job), wakeUp.wait(timeout: deadline) == .success {}
    }
}
