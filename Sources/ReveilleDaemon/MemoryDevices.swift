import ReveilleCore
import Synchronization

/// An `AudioOutput` that plays nothing and remembers what it was asked, for the daemon's
/// in-process tests (the real path is `ALSAOutput`, tested through alsa-lib's file plugin).
public final class MemoryAudioOutput: AudioOutput {
    public enum Call: Hashable, Sendable {
        case play(AudioRequest)
        case attenuate(Bool)
        case escalate
        case stop
    }

    private let log = Mutex<[Call]>([])

    public init() {}

    /// Everything asked so far, oldest first.
    public var calls: [Call] { log.withLock { $0 } }

    /// Whether a sound plays now: the last play came after the last stop.
    public var isPlaying: Bool {
        log.withLock { calls in
            calls.last {
                switch $0 {
                case .attenuate, .escalate: false
                default: true
                }
            }.map {
                if case .play = $0 { true } else { false }
            }
                ?? false
        }
    }

    public func play(_ request: AudioRequest) { log.withLock { $0.append(.play(request)) } }

    public func playAndReport(_ request: AudioRequest) -> PlaybackReport {
        play(request)
        return PlaybackReport(device: "memory", source: request.sound ?? "the built-in tone", problems: [])
    }

    public func setAttenuated(_ attenuated: Bool) { log.withLock { $0.append(.attenuate(attenuated)) } }
    public func escalate() { log.withLock { $0.append(.escalate) } }
    public func stop() { log.withLock { $0.append(.stop) } }
    public var statusLine: String { isPlaying ? "playing (memory)" : "idle (memory)" }
    public func availableDevices() -> [AudioDevice] { [AudioDevice(name: "memory", description: "in-memory double")] }
    public func problem(withSound path: String) -> String? { nil }
}

/// A `TagReader` whose health tests set, and which remembers why it was asked to poll.
public final class MemoryTagReader: TagReader {
    private let state: Mutex<(health: ReaderHealth, reasons: Set<String>)>

    public init(health: ReaderHealth = .ok("memory")) {
        state = Mutex((health, []))
    }

    public var health: ReaderHealth {
        get { state.withLock { $0.health } }
        set { state.withLock { $0.health = newValue } }
    }

    /// The reasons it polls for now (empty: idle).
    public var pollingReasons: Set<String> { state.withLock { $0.reasons } }

    public func setPolling(_ reason: String, _ active: Bool) {
        state.withLock { if active { $0.reasons.insert(reason) } else { $0.reasons.remove(reason) } }
    }
}

/// A voice that remembers what it was asked to say, for in-process tests.
public final class MemoryVoice: Voice {
    private let spoken = Mutex<[String]>([])

    public init() {}

    public func say(_ text: String) { spoken.withLock { $0.append(text) } }

    public var said: [String] { spoken.withLock { $0 } }

    public var statusLine: String { "memory" }
}
