import Foundation

/// Made-up time zones compiled by the system's `zic` into a folder of the test's own, which a
/// process then reads as its tzdata through `TZDIR`: rules no built-in copy can know.
public struct ZoneCompiler {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder to hand over as `TZDIR`, named `zoneinfo` like the system's.
    public let directory: URL

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-tzdir-\(UUID().uuidString.prefix(8))/zoneinfo")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Compiles zic source (Rule and Zone lines) into `directory`, replacing what was there.
    public func compile(_ source: String) throws {
        let input = directory.appendingPathComponent("source.zi")
        try source.write(to: input, atomically: true, encoding: .utf8)
        let zic = ["/usr/sbin/zic", "/usr/bin/zic", "/sbin/zic"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let zic else { throw Failure(description: "zic is not installed (Debian: libc-bin)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zic)
        process.arguments = ["-d", directory.path, input.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "zic failed: \(text)")
        }
    }

    public func remove() {
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }
}
