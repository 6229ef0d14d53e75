import FoundationEssentials
import Glibc

/// Newline-delimited JSON: one request or response per line, at most `maxLineBytes` long.
public enum Framing {
    /// The longest line either side accepts, newline excluded.
    public static let maxLineBytes = 64 * 1024

    /// The value as one line of JSON, newline included.
    public static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own types always encode; a failure here is a programming error worth a clear message.
        guard let data = try? encoder.encode(value) else {
            return Array(#"{"v":1,"ok":false,"error":{"code":"internal","message":"could not encode reply"}}"#.utf8)
                + [0x0A]
        }
        return Array(data) + [0x0A]
    }
}

/// Splits incoming bytes into lines, refusing a line longer than the limit before it is all read.
public struct LineBuffer: Sendable {
    public struct TooLarge: Error, Equatable {}

    private var bytes: [UInt8] = []
    private var scanned = 0
    public let limit: Int

    public init(limit: Int = Framing.maxLineBytes) {
        self.limit = limit
    }

    public mutating func append(_ chunk: some Collection<UInt8>) {
        bytes.append(contentsOf: chunk)
    }

    /// The next complete line without its newline (a trailing `\r` dropped too), or nil when none is complete.
    public mutating func nextLine() throws(TooLarge) -> [UInt8]? {
        guard let newline = bytes[scanned...].firstIndex(of: 0x0A) else {
            scanned = bytes.count
            if bytes.count > limit { throw TooLarge() }
            return nil
        }
        guard newline <= limit else { throw TooLarge() }
        var line = Array(bytes[..<newline])
        if line.last == 0x0D { line.removeLast() }
        bytes.removeSubrange(...newline)
        scanned = 0
        return line
    }

    /// Bytes received that are not yet a whole line.
    public var pendingCount: Int { bytes.count }
}
