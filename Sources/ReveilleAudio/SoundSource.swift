/// Where frames come from: a decoded file or the built-in tone. Frames are interleaved signed
/// 16-bit samples, `channels` per frame, at `sampleRate`.
protocol SoundSource: AnyObject {
    var sampleRate: Int { get }
    var channels: Int { get }
    /// What it is, for logs and `reveille status`.
    var name: String { get }
    /// Fills up to `frames` frames; returns how many it wrote (0 at the end).
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws -> Int
    /// Goes back to the first frame, to loop.
    func rewind() throws
}

/// The built-in alarm tone, generated: four 100 ms beeps of 880 Hz, 100 ms apart, then 500 ms
/// of silence; 1.2 s in all, repeated by looping. Each beep rises and falls over 5 ms so that it does not
/// click. Used when no sound is set or the file cannot be read.
final class ToneSource: SoundSource {
    static let frequency = 880.0
    static let cycleSeconds = 1.2
    let sampleRate = 48_000
    let channels = 1
    let name = "the built-in tone"
    private var position = 0

    private var cycleFrames: Int { Int(ToneSource.cycleSeconds * Double(sampleRate)) }

    /// One cycle, then the end (0): looping rewinds it, a chime plays it once.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws -> Int {
        let count = min(frames, cycleFrames - position)
        for index in 0..<count {
            buffer[index] = sample(at: position)
            position += 1
        }
        return count
    }

    func rewind() throws { position = 0 }

    /// The sample at `frame` frames into the cycle.
    func sample(at frame: Int) -> Int16 {
        let beepFrames = sampleRate / 10
        let beep = frame / (2 * beepFrames)
        let within = frame % (2 * beepFrames)
        guard beep < 4, within < beepFrames else { return 0 }
        let edge = Double(sampleRate) * 0.005
        let envelope = min(1, Double(within) / edge, Double(beepFrames - within) / edge)
        let phase = 2 * Double.pi * ToneSource.frequency * Double(frame) / Double(sampleRate)
        return Int16((sin(phase) * envelope * 0.9 * Double(Int16.max)).rounded())
    }
}

/// Silence, for as long as it is read: what speech is mixed over when no alarm plays.
final class SilenceSource: SoundSource {
    let sampleRate: Int
    let channels = 1
    let name = "speech"

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws -> Int {
        for index in 0..<frames { buffer[index] = 0 }
        return frames
    }

    func rewind() throws {}
}

#if canImport(Glibc)
    import Glibc
#endif
