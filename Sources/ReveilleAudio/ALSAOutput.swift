import CALSAShims
import Dispatch
import FoundationEssentials
import Glibc
import ReveilleSystem
import Logging
import ReveilleCore
import Synchronization

/// Where and how sound is played, from the `[audio]` section of reveille.toml.
public struct AudioConfiguration: Sendable, Hashable {
    /// Devices tried in order, then `backupDevices`; `default` is tried after them.
    public var devices: [String]
    /// Where the sound goes when `devices` fail or stall (`[audio] backup_devices`).
    public var backupDevices: [String]
    /// The sound of alarms that name none; nil: the built-in tone.
    public var defaultSound: String?
    /// A mixer control to turn up at ring start.
    public var mixer: MixerSetting?
    /// After every device has failed, wait this long and try them all again.
    public var retrySeconds: Double

    public init(
        devices: [String] = [], defaultSound: String? = nil, mixer: MixerSetting? = nil, retrySeconds: Double = 5,
        backupDevices: [String] = []
    ) {
        self.devices = devices
        self.backupDevices = backupDevices
        self.defaultSound = defaultSound
        self.mixer = mixer
        self.retrySeconds = retrySeconds
    }

    /// The devices in the order they are tried.
    public var candidates: [String] {
        var all: [String] = []
        for device in devices + backupDevices where !all.contains(device) { all.append(device) }
        return all.contains("default") ? all : all + ["default"]
    }
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
    /// Signalled by every request (`play`, `stop`, speech): wakes the thread from waiting for
    /// work or from a pause.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The current request's number: the write loop reads it without locking.
    private let generation = Atomic<UInt64>(0)
    private let attenuatedFlag = Atomic<Bool>(false)
    private let escalatedFlag = Atomic<Bool>(false)
    private let status: Mutex<String>
    private let stopRequested = Mutex<Double?>(nil)

    // The stall watchdog: a device that takes nothing (its position stopped, or a write that
    // never returns) is dropped for the next one. The writer notes each frame written; while it is
    // inside a device, the watchdog looks every quarter second, and one that made no progress for
    // `stallSeconds` is marked stalled and its thread sent a signal that ends a blocked call.
    private let writer = Mutex<pthread_t?>(nil)
    /// The writer thread in charge; a writer left behind in a call that never returns has an older number.
    private let writerNumber = Atomic<UInt64>(0)
    /// The device the writer is inside, and the job it plays.
    private let inside = Mutex<(device: String, job: Playback.Job)?>(nil)
    /// Devices whose writer was left behind, stuck in them: skipped until that writer comes back.
    private let wedged = Mutex<Set<String>>([])
    /// Backup devices an escalated ring plays on now (`BackupPlayback`).
    private let backupWriters = Mutex<Set<String>>([])
    private let lastProgress = Atomic<UInt64>(0)
    private let inDevice = Atomic<Bool>(false)
    private let stalledFlag = Atomic<Bool>(false)
    private let watchWake = DispatchSemaphore(value: 0)
    private let stallSignal: Int32
    /// How long a device may take nothing before it is dropped.
    public static let stallSeconds = 2.0
    /// Told when no device plays an alarm (true), and when one plays again (false).
    private let onSilent: @Sendable (Bool) -> Void
    private let silent = Atomic<Bool>(false)

    private struct Shared {
        var pending: Playback.Job?
        var reports: [UInt64: PlaybackReport] = [:]
        /// `playAndReport` callers waiting for their request's report, by request number.
        var waiting: [UInt64: DispatchSemaphore] = [:]
        /// Speech waiting to be mixed over what plays, first in first out.
        var speech: [Utterance] = []
        /// Whether the thread is playing a job (else speech needs a bed of silence to ride on).
        var playing = false
        /// The job the writer plays now.
        var current: Playback.Job?

        /// Wakes the waiters of requests older than `number`: theirs will never come.
        mutating func releaseWaiters(before number: UInt64) {
            for (waiter, semaphore) in waiting where waiter < number { semaphore.signal() }
        }
    }

    public init(
        configuration: AudioConfiguration, logger: Logger, onSilent: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.logger = logger
        self.onSilent = onSilent
        self.status = Mutex(ALSAOutput.idleLine(configuration))
        stallSignal = RV_alsa_install_stall_signal()
        startWriter()
        Threads.start("audio-watch") { [self] in watchMain() }
    }

    /// A new writer thread, in charge from now on.
    private func startWriter() {
        let number = writerNumber.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        Threads.start("audio") { [self] in
            RV_alsa_accept_stall_signal()
            writer.withLock { $0 = pthread_self() }
            threadMain(number)
        }
    }

    /// Whether writer `number` is the one in charge.
    func isWriter(_ number: UInt64) -> Bool { writerNumber.load(ordering: .acquiring) == number }

    /// Devices to skip: their writer is stuck in them.
    var wedgedDevices: Set<String> { wedged.withLock { $0 } }

    // MARK: The stall watchdog

    private static func monotonicNanoseconds() -> UInt64 { Monotonic.nanoseconds() }

    /// The writer begins work inside `device` for `job` (opening it counts): the watchdog looks from now.
    func enterDevice(_ device: String, for job: Playback.Job) {
        inside.withLock { $0 = (device, job) }
        lastProgress.store(ALSAOutput.monotonicNanoseconds(), ordering: .releasing)
        stalledFlag.store(false, ordering: .releasing)
        if !inDevice.exchange(true, ordering: .acquiringAndReleasing) { watchWake.signal() }
    }

    /// The writer left the device (closed it): the watchdog sleeps.
    func leaveDevice() {
        inDevice.store(false, ordering: .releasing)
        inside.withLock { $0 = nil }
    }

    /// Frames were written: the device advances.
    func noteProgress() { lastProgress.store(ALSAOutput.monotonicNanoseconds(), ordering: .releasing) }

    /// Whether the watchdog found the device stalled (cleared by `enterDevice`).
    var isStalled: Bool { stalledFlag.load(ordering: .acquiring) }

    private func watchMain() {
        while true {
            guard inDevice.load(ordering: .acquiring) else {
                watchWake.wait()
                continue
            }
            usleep(250_000)
            guard inDevice.load(ordering: .acquiring) else { continue }
            let idle = Double(ALSAOutput.monotonicNanoseconds() &- lastProgress.load(ordering: .acquiring)) / 1e9
            guard idle >= ALSAOutput.stallSeconds else { continue }
            stalledFlag.store(true, ordering: .releasing)
            // Again every quarter second until the writer is out: closing a stuck device may block too.
            if let thread = writer.withLock({ $0 }) { pthread_kill(thread, stallSignal) }
            // A call that even the signal does not end (a plugin that retries its write): the
            // writer is left behind in it, and a new one goes on with the job on the next device.
            if idle >= ALSAOutput.stallSeconds + 1, let (device, job) = inside.withLock({ $0 }) {
                abandonWriter(in: device, playing: job)
            }
        }
    }

    private func abandonWriter(in device: String, playing job: Playback.Job) {
        logger.error(
            "sound: \(device) is stuck in a call that does not return; it is left behind and the sound goes on on the next device"
        )
        wedged.withLock { _ = $0.insert(device) }
        inDevice.store(false, ordering: .releasing)
        inside.withLock { $0 = nil }
        shared.withLock { shared in
            // The job goes on, unless a newer request came meanwhile.
            if shared.pending == nil, isCurrent(job) { shared.pending = job }
        }
        startWriter()
        wakeUp.signal()
    }

    /// A writer left behind came back from its device: the device may be tried again.
    func writerReturned(from device: String) {
        wedged.withLock { _ = $0.remove(device) }
        logger.notice("sound: \(device) returned from the call it was stuck in; it may be tried again")
    }

    /// No device plays the alarm (true), or one does again (false): said once per change.
    func setSilent(_ value: Bool) {
        guard silent.exchange(value, ordering: .acquiringAndReleasing) != value else { return }
        onSilent(value)
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

    public func escalate() {
        escalatedFlag.store(true, ordering: .releasing)
        logger.notice("sound: rising to full volume (unanswered)")
        ringOnBackups()
    }

    /// Escalation rings on every backup device too, beside the one playing, each on a thread of
    /// its own until the ring stops; never two on one device (one may be stuck in it).
    private func ringOnBackups() {
        guard let job = shared.withLock({ $0.current }), job.request.length == .untilStopped, job.silentBed == nil
        else { return }
        let playing = inside.withLock { $0?.device }
        let stuck = wedgedDevices
        for device in configuration.backupDevices where device != playing && !stuck.contains(device) {
            guard backupWriters.withLock({ $0.insert(device).inserted }) else { continue }
            Threads.start("audio-backup") { [self] in
                BackupPlayback(job: job, device: device, output: self).run()
                backupWriters.withLock { _ = $0.remove(device) }
            }
        }
    }

    public func stop() {
        stopRequested.withLock { $0 = Monotonic.seconds() }
        shared.withLock { shared in
            shared.pending = nil
            shared.speech.removeAll()  // a stop means quiet: the voice too
            let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            shared.releaseWaiters(before: number)
        }
        wakeUp.signal()
    }

    public var statusLine: String { status.withLock { $0 } }

    private static func idleLine(_ configuration: AudioConfiguration) -> String {
        "idle; devices: " + configuration.candidates.joined(separator: ", ")
    }

    /// The closed set a request may name: the configured devices, then alsa-lib's plain outputs.
    public func availableDevices() -> [AudioDevice] {
        DeviceList.permitted(configured: configuration.devices + configuration.backupDevices)
    }

    /// Opens the file with libsndfile, as a ring would.
    public func problem(withSound path: String) -> String? {
        do {
            _ = try SoundFile.open(path, within: Playback.fileOpenSeconds)
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func post(_ request: AudioRequest, waiter: DispatchSemaphore?) -> UInt64 {
        let number = shared.withLock { shared in
            let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            attenuatedFlag.store(false, ordering: .releasing)
            escalatedFlag.store(false, ordering: .releasing)
            shared.pending = Playback.Job(
                request: request, generation: number, postedAt: Monotonic.seconds(), silentBed: nil)
            shared.waiting[number] = waiter
            shared.releaseWaiters(before: number)
            return number
        }
        wakeUp.signal()
        return number
    }

    private func threadMain(_ number: UInt64) {
        while isWriter(number) {
            let job = shared.withLock { shared -> Playback.Job? in
                let job = shared.pending.take()
                shared.playing = job != nil
                shared.current = job
                return job
            }
            guard let job else {
                wakeUp.wait()
                continue
            }
            var playback = Playback(job: job, output: self, writer: number)
            playback.run()
            guard isWriter(number) else { return }
            status.withLock { $0 = ALSAOutput.idleLine(configuration) }
            let played = playback.firstFrameWritten
            shared.withLock { shared in
                // No device took the voice's own bed: drop the words rather than retry in a loop
                // (an alarm keeps retrying on its own, and speech mixes over it when it plays).
                if job.silentBed != nil, !played { shared.speech.removeAll() }
                // A chime or a sound test that ended before the voice finished: the rest on silence.
                postBed(&shared)
            }
        }
    }

    // MARK: Speech

    /// One synthesized sentence, mixed over the sound as it is written.
    struct Utterance {
        var samples: [Int16]
        var sampleRate: Int
        var text: String
        var askedAt: Double
        /// The next sample, in the utterance's own rate.
        var position = 0.0
    }

    /// Mixes `samples` (mono, at `sampleRate`) over whatever plays, the sound lowered under it;
    /// when nothing plays, over silence. `askedAt`: when the words were asked for, for the log.
    func speak(_ samples: [Int16], sampleRate: Int, text: String, askedAt: Double) {
        guard !samples.isEmpty else { return }
        // In one lock: a bed must never replace an alarm posted meanwhile.
        shared.withLock { shared in
            shared.speech.append(Utterance(samples: samples, sampleRate: sampleRate, text: text, askedAt: askedAt))
            if !shared.playing { postBed(&shared) }
        }
        wakeUp.signal()
    }

    /// Posts silence as long as the speech waiting, when nothing else is posted.
    private func postBed(_ shared: inout Shared) {
        guard shared.pending == nil, let rate = shared.speech.first?.sampleRate else { return }
        let seconds = shared.speech.reduce(0.3) { $0 + Double($1.samples.count) / Double($1.sampleRate) }
        let bed = AudioRequest(sound: nil, volume: 100, fadeInSeconds: 0, length: .seconds(seconds))
        let number = generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        shared.pending = Playback.Job(request: bed, generation: number, postedAt: Monotonic.seconds(), silentBed: rate)
        shared.releaseWaiters(before: number)
    }

    /// Whether speech is waiting or being mixed: the sound is lowered meanwhile.
    var isSpeaking: Bool { shared.withLock { !$0.speech.isEmpty } }

    /// Adds the speech due over the next `frames` frames (interleaved, `channels` each, at `rate`)
    /// to `buffer`. Returns the utterances whose first frame went into this buffer.
    func mixSpeech(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int, channels: Int, rate: Int)
        -> [Utterance]
    {
        shared.withLock { shared in
            var started: [Utterance] = []
            var frame = 0
            while frame < frames, var utterance = shared.speech.first {
                // Words held back longer than this (no device worked meanwhile) are stale: dropped.
                if utterance.position == 0, Monotonic.seconds() - utterance.askedAt > 10 {
                    shared.speech.removeFirst()
                    continue
                }
                if utterance.position == 0 { started.append(utterance) }
                let step = Double(utterance.sampleRate) / Double(rate)
                while frame < frames, Int(utterance.position) < utterance.samples.count {
                    let sample = Int(utterance.samples[Int(utterance.position)])
                    for channel in 0..<channels {
                        let index = frame * channels + channel
                        buffer[index] = Int16(clamping: Int(buffer[index]) + sample)
                    }
                    utterance.position += step
                    frame += 1
                }
                if Int(utterance.position) >= utterance.samples.count {
                    shared.speech.removeFirst()
                } else {
                    shared.speech[0] = utterance
                }
            }
            return started
        }
    }

    // MARK: What a playback asks of its output

    func isCurrent(_ job: Playback.Job) -> Bool { generation.load(ordering: .acquiring) == job.generation }

    var attenuated: Bool { attenuatedFlag.load(ordering: .acquiring) }
    var escalated: Bool { escalatedFlag.load(ordering: .acquiring) }

    func setStatus(_ line: String) { status.withLock { $0 = line } }

    /// When `stop` was last called, to log how long stopping took.
    func takeStopRequest() -> Double? { stopRequested.withLock { $0.take() } }

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
