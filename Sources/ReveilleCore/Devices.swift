/// What the alarm sound should be.
public struct AudioRequest: Sendable, Hashable {
    /// A sound file; nil means the built-in tone.
    public var sound: String?
    /// 0-100.
    public var volume: Int
    public var fadeInSeconds: Int

    public init(sound: String?, volume: Int, fadeInSeconds: Int) {
        self.sound = sound
        self.volume = volume
        self.fadeInSeconds = fadeInSeconds
    }
}

/// Where the alarm sound goes. Calls return at once: playing happens elsewhere, and the ring
/// session never waits for it or depends on it succeeding.
public protocol AudioOutput: Sendable {
    /// Starts the sound, looping until `stop`, fading in from quiet.
    func play(_ request: AudioRequest)
    /// Lowers the sound (true) or brings it back (false).
    func setAttenuated(_ attenuated: Bool)
    /// Stops at once (drop, not drain).
    func stop()
    /// One line for `reveille status`: what it is doing and on which device.
    var statusLine: String { get }
}

/// How the NFC reader is (SPEC §5).
public enum ReaderHealth: Sendable, Hashable, CustomStringConvertible {
    /// No reader in the configuration: math only.
    case notConfigured
    case ok(String)
    case absent(String)
    case failing(String)

    public var isHealthy: Bool {
        if case .ok = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .notConfigured: "none configured (alarms are dismissed by math)"
        case .ok(let device): "ok (\(device))"
        case .absent(let why): "absent: \(why)"
        case .failing(let why): "failing: \(why)"
        }
    }
}

/// The NFC reader, as the ring session sees it. Tag events reach the daemon through its controller.
public protocol TagReader: Sendable {
    var health: ReaderHealth { get }
}

/// No reader configured.
public struct NoTagReader: TagReader {
    public init() {}
    public var health: ReaderHealth { .notConfigured }
}
