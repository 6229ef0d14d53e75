import CSndFile
import Foundation

/// Sound files for and from the tests, read and written with libsndfile.
public struct Recording {
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples.
    public var samples: [Int16]

    public var frames: Int { samples.count / max(channels, 1) }
    public var seconds: Double { Double(frames) / Double(sampleRate) }

    /// Reads a file (sf_open, sf_readf_short).
    public init(contentsOf path: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw TestFailure("cannot read \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        samples = [Int16](repeating: 0, count: Int(info.frames) * channels)
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, info.frames) }
        samples.removeLast(samples.count - Int(read) * channels)
    }

    public init(sampleRate: Int, channels: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// A sine of `frequency` Hz on every channel.
    public static func sine(_ frequency: Double, seconds: Double, sampleRate: Int, channels: Int) -> Recording {
        var samples: [Int16] = []
        for frame in 0..<Int(seconds * Double(sampleRate)) {
            let value = Int16(sin(2 * .pi * frequency * Double(frame) / Double(sampleRate)) * 20_000)
            samples.append(contentsOf: repeatElement(value, count: channels))
        }
        return Recording(sampleRate: sampleRate, channels: channels, samples: samples)
    }

    /// Writes the recording as `format` (SF_FORMAT_WAV | SF_FORMAT_PCM_16, SF_FORMAT_FLAC | ..., ...).
    public func write(to path: String, format: Int32) throws {
        var info = SF_INFO(
            frames: 0, samplerate: Int32(sampleRate), channels: Int32(channels), format: format, sections: 0,
            seekable: 0)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw TestFailure("cannot write \(path): \(String(cString: sf_strerror(nil)))")
        }
        _ = samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, sf_count_t(frames)) }
        sf_close(file)
    }

    /// The first channel from `start` to `end` seconds.
    public func mono(from start: Double, to end: Double) -> [Double] {
        let first = max(0, Int(start * Double(sampleRate)))
        let last = min(frames, Int(end * Double(sampleRate)))
        guard first < last else { return [] }
        return (first..<last).map { Double(samples[$0 * channels]) }
    }

    /// The root mean square of the first channel between `start` and `end` seconds (0: none).
    public func rms(from start: Double, to end: Double) -> Double {
        let values = mono(from: start, to: end)
        guard !values.isEmpty else { return 0 }
        return (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }

    /// The largest absolute sample between `start` and `end` seconds.
    public func peak(from start: Double, to end: Double) -> Double {
        mono(from: start, to: end).map(abs).max() ?? 0
    }

    /// Power at `frequency` (Goertzel) between `start` and `end` seconds, per sample.
    public func power(at frequency: Double, from start: Double, to end: Double) -> Double {
        let values = mono(from: start, to: end)
        let coefficient = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var previous = 0.0
        var beforePrevious = 0.0
        for value in values {
            let current = value + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power / Double(max(values.count, 1))
    }

    /// Of the `candidates`, the frequency with the most power between `start` and `end`.
    public func dominant(among candidates: [Double], from start: Double, to end: Double) -> Double {
        candidates.max { power(at: $0, from: start, to: end) < power(at: $1, from: start, to: end) }!
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
