import Foundation
import Logging
import Synchronization

/// Appends log lines to a file: `2026-11-21T06:45:00Z info reveilled: message`.
/// Used in development (`--root`) so the log sits beside the state; on the device the journal keeps it.
public struct FileLogHandler: LogHandler {
    private final class Sink: Sendable {
        let handle: Mutex<FileHandle>

        init(handle: FileHandle) {
            self.handle = Mutex(handle)
        }
    }

    private let sink: Sink
    private let label: String
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
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let stamp = Date().formatted(.iso8601)
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let extra =
            merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        let line = "\(stamp) \(event.level) \(label): \(event.message)\(extra)\n"
        sink.handle.withLock { $0.write(Data(line.utf8)) }
    }
}
