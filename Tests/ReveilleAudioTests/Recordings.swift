import Foundation
import Logging
import ReveilleTestSupport
import Synchronization

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
