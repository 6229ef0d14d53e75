import Foundation
import Glibc
import ReveilleSystem
import Synchronization
import Testing

/// A state file replaced (`RegularFile.replace`) when a system call fails the way a full disk, a
/// failing card or a read-only file system makes it fail: tested in-process, each call failed in
/// turn through `FileCalls`, as swift-system tests its error paths. The file keeps what it had,
/// nothing half-written is left beside it, and the error names the call and the file.
@Suite struct FileErrorPathTests {
    /// Which call fails, and how.
    enum Failure: String, CaseIterable, Sendable {
        case openReadOnly, writeFull, writeFullAfterSome, writeNothing, fsyncIO, renameIO
    }

    static func calls(failing failure: Failure) -> FileCalls {
        var calls = FileCalls.system
        switch failure {
        case .openReadOnly:
            calls.open = { _, _, _ in
                errno = EROFS
                return -1
            }
        case .writeFull:
            calls.write = { _, _, _ in
                errno = ENOSPC
                return -1
            }
        case .writeFullAfterSome:
            // A short write (the disk fills), then the next one fails.
            let first = Mutex(true)
            calls.write = { fd, bytes, count in
                guard
                    first.withLock({
                        let was = $0; $0 = false; return was
                    })
                else {
                    errno = ENOSPC
                    return -1
                }
                return Glibc.write(fd, bytes, min(count, 3))
            }
        case .writeNothing: calls.write = { _, _, _ in 0 }
        case .fsyncIO:
            calls.fsync = { _ in
                errno = EIO
                return -1
            }
        case .renameIO:
            calls.rename = { _, _ in
                errno = EIO
                return -1
            }
        }
        return calls
    }

    @Test(arguments: Failure.allCases)
    func aFailedCallLeavesTheFileAsItWasAndNothingBesideIt(failure: Failure) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-file-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/household.n"
        try RegularFile.replace(path, with: Array("old\n".utf8), mode: 0o600, durable: true)

        var thrown: SystemCallError?
        do {
            try RegularFile.replace(
                path, with: Array("new and longer\n".utf8), mode: 0o600, durable: true,
                calls: Self.calls(failing: failure))
        } catch {
            thrown = error
        }
        let error = try #require(thrown, "\(failure): the replacement fails")
        let expected =
            switch failure {
            case .openReadOnly: "open \(path).new: \(String(cString: strerror(EROFS)))"
            case .writeFull, .writeFullAfterSome: "write \(path).new: \(String(cString: strerror(ENOSPC)))"
            case .writeNothing: "write \(path).new: wrote nothing"
            case .fsyncIO: "fsync \(path).new: \(String(cString: strerror(EIO)))"
            case .renameIO: "rename \(path): \(String(cString: strerror(EIO)))"
            }
        #expect(error.description == expected)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n", "the file keeps what it had")
        #expect(!FileManager.default.fileExists(atPath: path + ".new"), "nothing half-written is left beside it")

        // The system's calls again: the change goes through, with its mode.
        try RegularFile.replace(path, with: Array("new\n".utf8), mode: 0o600, durable: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
