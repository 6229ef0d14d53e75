import Glibc
import ReveilleSystem

/// Reads a whole file a person named (a calendar), with the limits a daemon needs: only a regular
/// file (never a FIFO that would block the loop, never a device; `RegularFile.open`), and only up
/// to `maxBytes` (checked with `fstat` before a byte is read, so a 1 GB file costs nothing).
enum SmallFile {
    /// The largest calendar file read: a household's calendars are kilobytes; a school's, a few hundred.
    static let maxCalendarBytes = 4 << 20

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ path: String, maxBytes: Int) throws -> String {
        do {
            return try RegularFile.open(path).withRaw { fd in try read(fd, path, maxBytes: maxBytes) }
        } catch let error as SystemCallError {
            throw Problem(description: error.errno == ENOENT ? "no such file" : error.reason)
        }
    }

    private static func read(_ fd: Int32, _ path: String, maxBytes: Int) throws -> String {
        let info = try RegularFile.status(of: fd, path)
        guard Int(info.st_size) <= maxBytes else {
            throw Problem(
                description:
                    "it is \(Int(info.st_size) >> 20) MiB, more than the \(maxBytes >> 20) MiB a calendar may be")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw SystemCallError("read", path) }
            guard count > 0 else { break }
            offset += count
        }
        guard let text = String(validating: bytes[..<offset], as: UTF8.self) else {
            throw Problem(description: "it is not UTF-8 text")
        }
        return text
    }
}
