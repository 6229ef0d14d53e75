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
/// daemon's others; see `Daemon`). Calls only post a request and return; the thread opens the
/// device, streams, falls back and retries. A newer request replaces the one playing.
public final class ALSAOutput: AudioOutput, @unchecked Sendable {
    let configuration: AudioConfiguration
    let logger: Logger
    /// Guards `pending`, `reports` and the thread's sleep; `generation` and `attenuated` are
    /// atomics so that the write loop reads them without locking.
    private let condition = NSCondition()
    private var pending: Playback.Job?
    private var reports: [UInt64: PlaybackReport] = [:]
    private let generation = Atomic<UInt64>(0)
    private let attenuatedFlag = Atomic<Bool>(false)
    private let status: Mutex<String>
    private let stopRequested = Mutex<ContinuousClock.Instant?>(nil)

    public init(configuration: AudioConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.status = Mutex(ALSAOutput.idleLine(configuration))
        let thread = Thread { [self] in threadMain() }
        thread.name = "audio"
        thread.start()
    }

    public func play(_ request: AudioRequest) {
        _ = post(request)
    }

    public func playAndReport(_ request: AudioRequest) -> PlaybackReport {
        let number = post(request)
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(20)
        while reports[number] == nil, generation.load(ordering: .acquiring) == number {
            if !condition.wait(until: deadline) { break }
        }
        if let report = reports.removeValue(forKey: number) { return report }
        return PlaybackReport(
            device: nil, source: request.sound ?? "the built-in tone", problems: ["stopped before it started"])
    }

    public func setAttenuated(_ attenuated: Bool) {
        attenuatedFlag.store(attenuated, ordering: .releasing)
        logger.info("sound: \(attenuated ? "lowered while the sleeper answers" : "back to full volume")")
    }

    public func stop() {
        stopRequested.withLock { $0 = .now }
        condition.lock()
        pending = nil
        generation.wrappingAdd(1, ordering: .acquiringAndReleasing)
        condition.broadcast()
        condition.unlock()
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

    private func post(_ request: AudioRequest) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        attenuatedFlag.store(false, ordering: .releasing)
        pending = Playback.Job(request: request, generation: number, postedAt: .now)
        condition.broadcast()
        return number
    }

    private func threadMain() {
        while true {
            condition.lock()
            while pending == nil { condition.wait() }
            let job = pending!
            pending = nil
            condition.unlock()
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
        condition.lock()
        reports[job.generation] = report
        if reports.count > 8 { reports.removeValue(forKey: reports.keys.min()!) }
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps up to `seconds`, returning early when the job is replaced or stopped.
    func pause(_ job: Playback.Job, seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        while isCurrent(job), condition.wait(until: deadline) {}
        condition.unlock()
    }
}
