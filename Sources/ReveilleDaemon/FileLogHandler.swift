import Foundation
import Logging
import Synchronization

/// Writes log lines: `2026-11-21 06:45:00.012 notice reveilled: message`, in local time, to the
/// millisecond (truncated, never rounded: a line is never stamped after what it reports). One
/// handler writes both the terminal's lines (standard error) and the log file of a development
/// setup (`--root`), so the two always agree; under systemd the journal stamps stderr's lines itself.
public struct FileLogHandler: LogHandler {
    private final class Sink: Sendable {
        let handle: Mutex<FileHandle>

        init(handle: FileHandle) {
            self.handle = Mutex(handle)
        }
    }

    private let sink: Sink
    private let label: String
    private let stamped: Bool
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    /// Opens `path` for appending, creating it (mode 0640) if needed.
    public init(label: String, path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640])
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        handle.seekToEndOfFile()
        self.sink = Sink(handle: handle)
        self.label = label
        self.stamped = true
    }

    /// Standard error; without stamps when it is the journal's stream (`$JOURNAL_STREAM`).
    public static func standardError(label: String) -> FileLogHandler {
        FileLogHandler(
            label: label, sink: Sink(handle: FileHandle.standardError),
            stamped: ProcessInfo.processInfo.environment["JOURNAL_STREAM"] == nil)
    }

    private init(label: String, sink: Sink, stamped: Bool) {
        self.label = label
        self.sink = sink
        self.stamped = stamped
    }

    /// `2026-11-21 06:45:00.012`, local time.
    static func stamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let extra =
            merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        let line = (stamped ? FileLogHandler.stamp() + " " : "") + "\(event.level) \(label): \(event.message)\(extra)\n"
        sink.handle.withLock { $0.write(Data(line.utf8)) }
    }
}
