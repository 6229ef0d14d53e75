/// How loud each frame is: the alarm's volume reached by a fade-in, lowered while the sleeper
/// answers, as a linear gain applied to the samples. Pure: it counts frames, not seconds of the
/// wall clock, so the curve is the same on any device and in tests.
public struct Loudness: Sendable {
    /// The volume (0-100) that a lowered sound keeps, as a fraction of the alarm's volume.
    public static let attenuatedFraction = 0.5
    /// Frames over which a change of attenuation glides, so that it does not click.
    public let glideFrames: Double

    public let sampleRate: Double
    /// The alarm's volume; `ceiling` once escalated (reached by a glide of `escalationFrames`).
    public private(set) var volume: Double
    /// The loudest it gets: the alarm's `--volume-ceiling` (100: none).
    public let ceiling: Double
    /// Raised to full volume: an alarm unanswered for its `--escalate-after`.
    public private(set) var isEscalated = false
    private var escalationStep = 0.0
    public private(set) var fadeInFrames: Double
    /// Frames played so far; survives a change of device, so the fade does not restart.
    public private(set) var frame: Double = 0
    private var attenuation = 1.0
    private var attenuationTarget = 1.0

    public init(volume: Int, fadeInSeconds: Int, sampleRate: Int, ceiling: Int = 100) {
        self.ceiling = Double(min(max(ceiling, 0), 100))
        self.volume = min(Double(min(max(volume, 0), 100)), self.ceiling)
        self.sampleRate = Double(sampleRate)
        self.fadeInFrames = Double(max(fadeInSeconds, 0)) * Double(sampleRate)
        self.glideFrames = 0.1 * Double(sampleRate)
    }

    /// Rises to full volume (its ceiling) over `escalationSeconds`, from wherever the fade-in is (the fade-in
    /// ends at once: an unanswered ring has faded in long since).
    public mutating func escalate() {
        guard !isEscalated else { return }
        isEscalated = true
        volume = currentVolume / max(attenuation, 0.01)
        fadeInFrames = 0
        escalationStep = max(0, ceiling - volume) / (Loudness.escalationSeconds * sampleRate)
    }

    /// How long the rise to full volume takes: fast enough to wake, slow enough not to click.
    public static let escalationSeconds = 2.0

    /// Lowers (true) or restores (false) the sound, gliding over 100 ms.
    public mutating func setAttenuated(_ attenuated: Bool) {
        attenuationTarget = attenuated ? Loudness.attenuatedFraction : 1
    }

    /// The volume (0-100) at the current frame.
    public var currentVolume: Double {
        let fade = fadeInFrames > 0 ? min(frame / fadeInFrames, 1) : 1
        return volume * fade * attenuation
    }

    /// A volume of 0-100 as a linear gain: cubic, the curve PulseAudio uses, so that equal steps
    /// of volume sound like equal steps of loudness (volume 50 is about -18 dB).
    public static func gain(forVolume volume: Double) -> Float {
        let fraction = min(max(volume / 100, 0), 1)
        return Float(fraction * fraction * fraction)
    }

    /// Scales `frames` interleaved frames of `channels` samples in place and advances.
    public mutating func apply(to samples: UnsafeMutableBufferPointer<Int16>, frames: Int, channels: Int) {
        var index = 0
        for _ in 0..<frames {
            let gain = Loudness.gain(forVolume: currentVolume)
            for _ in 0..<channels {
                samples[index] = Int16(clamping: Int((Float(samples[index]) * gain).rounded()))
                index += 1
            }
            advance()
        }
    }

    private mutating func advance() {
        frame += 1
        if isEscalated, volume < ceiling { volume = min(ceiling, volume + escalationStep) }
        if attenuation != attenuationTarget {
            let step = (1 - Loudness.attenuatedFraction) / glideFrames
            attenuation =
                attenuation < attenuationTarget
                ? min(attenuation + step, attenuationTarget) : max(attenuation - step, attenuationTarget)
        }
    }
}
