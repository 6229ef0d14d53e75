/// How long a sound plays.
public enum PlaybackLength: Sendable, Hashable {
    /// An alarm: loops until `stop`.
    case untilStopped
    /// A chime: the sound once, no loop.
    case once
    /// `reveille sound test`: loops for this many seconds of audio.
    case seconds(Double)
}

/// What the alarm sound should be.
public struct AudioRequest: Sendable, Hashable {
    /// A sound file; nil means the configured default sound, else the built-in tone.
    public var sound: String?
    /// 0-100.
    public var volume: Int
    /// The loudest it may get, 0-100: the volume, an escalation and a backup device stop there.
    public var ceiling: Int = 100
    public var fadeInSeconds: Int
    public var length: PlaybackLength
    /// The one device to use (`sound test --device`); nil: the configured list, then `default`.
    public var device: String?

    public init(
        sound: String?, volume: Int, fadeInSeconds: Int, length: PlaybackLength = .untilStopped,
        device: String? = nil
    ) {
        self.sound = sound
        self.volume = volume
        self.fadeInSeconds = fadeInSeconds
        self.length = length
        self.device = device
    }
}

/// What each sound the machine asks for plays like: the choices live here, the edge only plays.
extension AudioRequest {
    /// A ring: the alarm's sound at its volume, fading in over its `--fade-in`, never above its
    /// `--volume-ceiling`.
    public static func ring(_ settings: RingSettings) -> AudioRequest {
        var request = AudioRequest(
            sound: settings.sound, volume: min(settings.volume, settings.volumeCeiling),
            fadeInSeconds: settings.fadeInSeconds)
        request.ceiling = settings.volumeCeiling
        return request
    }

    /// `--lead-sound`: the alarm's sound at a quarter of its volume, fading in over 5 s, until the
    /// ring takes over.
    public static func lead(_ settings: RingSettings) -> AudioRequest {
        var request = AudioRequest(
            sound: settings.sound, volume: max(1, min(settings.volume, settings.volumeCeiling) / 4), fadeInSeconds: 5)
        request.ceiling = settings.volumeCeiling
        return request
    }

    /// The short warning tone (an app's time runs out, "Are you up?"): one cycle of the built-in
    /// tone at 60.
    public static let warningTone = AudioRequest(sound: nil, volume: 60, fadeInSeconds: 0, length: .once)

    /// A reminder's chime: once, at the alarms' default `volume`, without fade. With no sound of
    /// its own, one cycle of the built-in tone ("" skips the configured alarm sound, which may be
    /// minutes long).
    public static func chime(_ chime: Chime, volume: Int) -> AudioRequest {
        AudioRequest(sound: chime.sound ?? "", volume: volume, fadeInSeconds: 0, length: .once)
    }
}

/// How a playback started, for `reveille sound test`.
public struct PlaybackReport: Sendable, Hashable {
    /// The device that took the first frame; nil when none could be opened.
    public var device: String?
    /// What is playing: a file, or the built-in tone.
    public var source: String
    /// What went wrong on the way, in order: an unreadable file, devices that failed.
    public var problems: [String]

    public init(device: String?, source: String, problems: [String]) {
        self.device = device
        self.source = source
        self.problems = problems
    }
}

/// An ALSA PCM a sound can go to, as `aplay -L` lists them.
public struct AudioDevice: Sendable, Hashable, Codable {
    public var name: String
    public var description: String

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}

/// Where the alarm sound goes. Calls return at once: playing happens elsewhere, and the ring
/// session never waits for it or depends on it succeeding.
public protocol AudioOutput: Sendable {
    /// Starts the sound, replacing whatever plays, fading in from quiet.
    func play(_ request: AudioRequest)
    /// Like `play`, then waits until the first frame is written or every device has failed once.
    func playAndReport(_ request: AudioRequest) -> PlaybackReport
    /// Lowers the sound (true) or brings it back (false).
    func setAttenuated(_ attenuated: Bool)
    /// Raises what rings to full volume (an alarm's `--escalate-after`), until the next `play`.
    func escalate()
    /// Stops at once (drop, not drain).
    func stop()
    /// One line for `reveille status`: what it is doing and on which device.
    var statusLine: String { get }
    /// The devices sound can go to: the only names a request may pick (`sound test --device`).
    func availableDevices() -> [AudioDevice]
    /// Why the sound file at `path` cannot be played, or nil when it can.
    func problem(withSound path: String) -> String?
}

/// How the NFC reader is (docs/guide/devices.md, "NFC tags").
public enum ReaderHealth: Sendable, Hashable, CustomStringConvertible {
    /// No reader in the configuration: math only.
    case notConfigured
    case ok(String)
    case absent(String)
    case failing(String)

    /// The device file a libnfc connstring names: `pn532_uart:/dev/ttyS0:115200` → `/dev/ttyS0`;
    /// nil for drivers found on a bus (`acr122_usb`).
    public static func devicePath(_ connstring: String) -> String? {
        let parts = connstring.split(separator: ":", maxSplits: 2)
        guard parts.count >= 2, parts[1].hasPrefix("/") else { return nil }
        return String(parts[1])
    }

    public var isHealthy: Bool {
        if case .ok = self { return true }
        return false
    }

    /// Why no one should be asked to tap a tag now (`tag add`, `tag test`), with the fix; nil
    /// when the reader works. Said by the daemon, and by the CLI before it prints its prompt.
    public var tapRefusal: String? {
        switch self {
        case .ok: nil
        case .notConfigured:
            "no NFC reader is configured: set [nfc] device in reveille.toml (see hardware.md), or give the tag's UID with --uid"
        case .absent(let why), .failing(let why):
            "the NFC reader is not working (\(why)): check its wiring and [nfc] device (hardware.md; 'reveille doctor' says more), or give the tag's UID with --uid"
        }
    }

    /// Its state in a few words, for a record: `not configured`, `absent: unplugged`.
    public var stateWords: String {
        switch self {
        case .notConfigured: "not configured"
        default: description
        }
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
    /// Polls for tags while any `reason` is active (a ring, a registration), idles otherwise.
    func setPolling(_ reason: String, _ active: Bool)
}

/// No reader configured.
public struct NoTagReader: TagReader {
    public init() {}
    public var health: ReaderHealth { .notConfigured }
    public func setPolling(_ reason: String, _ active: Bool) {}
}

/// The voice at the bedside (docs/guide/devices.md, "Buttons, keypad and voice"): says what `Spoken` words,
/// over the alarm, which is lowered while it speaks. Calls return at once.
public protocol Voice: Sendable {
    func say(_ text: String)
    /// One line for `status` and `doctor`: `espeak-ng, voice en`, `off`, or why it is silent.
    var statusLine: String { get }
}

/// No voice: `[voice] enabled = false`, or speech not built in.
public struct SilentVoice: Voice {
    public let statusLine: String
    public init(_ statusLine: String = "off") { self.statusLine = statusLine }
    public func say(_ text: String) {}
}
