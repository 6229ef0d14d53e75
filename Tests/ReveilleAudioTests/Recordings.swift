import CSndFile
import Foundation
import Logging
import Synchronization

/// Sound files for and from the tests, read and written with libsndfile.
struct Recording {
    var sampleRate: Int
    var channels: Int
    /// Interleaved samples.
    var samples: [Int16]

    var frames: Int { samples.count / max(channels, 1) }
    var seconds: Double { Double(frames) / Double(sampleRate) }

    /// Reads a file (sf_open, sf_readf_short).
    init(contentsOf path: String) throws {
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

    init(sampleRate: Int, channels: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// A sine of `frequency` Hz on every channel.
    static func sine(_ frequency: Double, seconds: Double, sampleRate: Int, channels: Int) -> Recording {
        var samples: [Int16] = []
        for frame in 0..<Int(seconds * Double(sampleRate)) {
            let value = Int16(sin(2 * .pi * frequency * Double(frame) / Double(sampleRate)) * 20_000)
            samples.append(contentsOf: repeatElement(value, count: channels))
        }
        return Recording(sampleRate: sampleRate, channels: channels, samples: samples)
    }

    /// Writes the recording as `format` (SF_FORMAT_WAV | SF_FORMAT_PCM_16, SF_FORMAT_FLAC | ..., ...).
    func write(to path: String, format: Int32) throws {
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
    func mono(from start: Double, to end: Double) -> [Double] {
        let first = max(0, Int(start * Double(sampleRate)))
        let last = min(frames, Int(end * Double(sampleRate)))
        guard first < last else { return [] }
        return (first..<last).map { Double(samples[$0 * channels]) }
    }

    /// The largest absolute sample between `start` and `end` seconds.
    func peak(from start: Double, to end: Double) -> Double {
        mono(from: start, to: end).map(abs).max() ?? 0
    }

    /// Power at `frequency` (Goertzel) between `start` and `end` seconds, per sample.
    func power(at frequency: Double, from start: Double, to end: Double) -> Double {
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
    func dominant(among candidates: [Double], from start: Double, to end: Double) -> Double {
        candidates.max { power(at: $0, from: start, to: end) < power(at: $1, from: start, to: end) }!
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A folder for one test's files, removed at the end.
final class Scratch {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "reveille-audio-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// An ALSA device string that captures into `name` as WAV (ALSA's file plugin over null).
    func captureDevice(_ name: String) -> String { "file:'\(file(name))',wav" }
}

/// A log handler that keeps every message, so that tests can check what was logged.
final class LogRecorder: @unchecked Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    func contains(_ text: String) -> Bool { messages.contains { $0.contains(text) } }

    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(recorder: self) }
        logger.logLevel = .debug
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append("\(event.level) \(event.message)")
        }
    }
}

/// Waits until `condition` holds, up to `seconds`; true if it did.
func waitFor(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// An ALSA configuration file of the test process's own, read after alsa-lib's: set once through
/// ALSA_CONFIG_PATH, rewritten by tests that need a PCM to appear (alsa-lib reloads changed files
/// at the next snd_pcm_open).
struct ALSATestConfiguration {
    let path: String

    static func make() throws -> ALSATestConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-alsa-\(getpid()).conf").path
        if getenv("ALSA_CONFIG_PATH") == nil {
            setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + path, 1)
        }
        return ALSATestConfiguration(path: path)
    }

    func define(_ text: String) throws {
        // A new file (new inode): alsa-lib notices a change by inode and mtime in seconds.
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
