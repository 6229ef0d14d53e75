import FoundationEssentials
import Glibc
import Logging
import ReveilleSystem
import ReveilleCore
import Synchronization

/// Writes log lines: `2026-11-21 06:45:00.012 notice reveilled: message`, in local time, to the
/// millisecond (truncated, never rounded: a line is never stamped after what it reports). One
/// handler writes both the terminal's lines (standard error) and the log file of a development
/// setup (`--root`), so the two always agree; under systemd the journal stamps stderr's lines itself.
public struct FileLogHandler: LogHandler {
    /// One descriptor, written with plain `write(2)`: a full disk, a closed pipe or any other
    /// failure drops the line and is counted, and never stops the daemon (Foundation's
    /// `FileHandle.write` traps on an error).
    private final class Sink: Sendable {
        /// The log file, closed with the sink; nil: standard error, which is not ours to close.
        private let file: Descriptor?
        private var fd: Int32 { file?.raw ?? STDERR_FILENO }
        private let lock = Mutex(())
        let dropped = Atomic<Int>(0)

        init(file: Descriptor?) {
            self.file = file
        }

        func write(_ line: String) {
            let bytes = Array(line.utf8)
            lock.withLock { _ in
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeBytes { raw in
                        Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    }
                    if written < 0 {
                        if errno == EINTR { continue }
                        dropped.add(1, ordering: .relaxed)
                        return
                    }
                    offset += written
                }
            }
        }
    }

    private let sink: Sink
    private let label: String
    private let stamped: Bool
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    /// Opens `path` for appending, creating it (mode 0640) if needed.
    public init(label: String, path: String) throws {
        self.sink = Sink(
            file: try Descriptor.open("open", path) {
                open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
            })
        self.label = label
        self.stamped = true
    }

    /// Standard error; without stamps when it is the journal's stream (`$JOURNAL_STREAM`).
    public static func standardError(label: String) -> FileLogHandler {
        FileLogHandler(
            label: label, sink: Sink(file: nil),
            stamped: ProcessInfo.processInfo.environment["JOURNAL_STREAM"] == nil)
    }

    private init(label: String, sink: Sink, stamped: Bool) {
        self.label = label
        self.sink = sink
        self.stamped = stamped
    }

    /// `2026-11-21 06:45:00.012`, local time (the process's zone, even while a zone's loader
    /// borrows `TZ` on another thread).
    static func stamp() -> String {
        let now = Wall.now()
        let parts = ProcessZone.local(now.tv_sec)
        let two = { (n: Int32) in NumberText.padded(Int(n), width: 2) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
            + NumberText.padded(now.tv_nsec / 1_000_000, width: 3)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let extra =
            merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        // One event, one line: a newline in a label or a calendar's name cannot forge another.
        let line =
            (stamped ? FileLogHandler.stamp() + " " : "")
            + "\(event.level) \(label): \(Sanitized.line("\(event.message)\(extra)"))\n"
        sink.write(line)
    }
}
