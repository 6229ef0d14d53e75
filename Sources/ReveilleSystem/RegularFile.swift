import Glibc

/// Opening a file a user named, with no side effect on what it turns out to be.
///
/// `open(O_RDONLY)` on a FIFO blocks until a writer comes (an alarm that never starts), and on a
/// serial device it can reset the line the NFC reader hangs on. So the path is first opened with
/// `O_PATH`, which touches nothing; `fstat` says whether it is a regular file; and only then is
/// that same file opened for reading, through `/proc/self/fd`, so that a rename between the check
/// and the open cannot swap in something else. Symbolic links are followed: what counts is what
/// they lead to.
public enum RegularFile {
    /// A descriptor open for reading (close-on-exec, non-blocking) on the regular file at `path`.
    /// Throws the failure of `open` or `fstat`, saying what is wrong.
    public static func open(_ path: String) throws(SystemCallError) -> Descriptor {
        let handle = try Descriptor.open("open", path) { Glibc.open(path, RegularFile.pathOnly | O_CLOEXEC) }
        let checked = try handle.withRaw { fd throws(SystemCallError) in try status(of: fd, path) }
        guard checked.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError(
                "fstat", path, errno: EINVAL, reason: "not a regular file (\(kind(checked.st_mode)))")
        }
        var reopened = handle.withRaw { Glibc.open("/proc/self/fd/\($0)", O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        if reopened < 0, errno == ENOENT {
            // No /proc (a bare chroot): the next best, which still never follows a last link.
            reopened = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        }
        guard reopened >= 0 else { throw SystemCallError("open", path) }
        let file = Descriptor(taking: reopened)
        let opened = try file.withRaw { fd throws(SystemCallError) in try status(of: fd, path) }
        guard opened.st_mode & S_IFMT == S_IFREG, opened.st_ino == checked.st_ino, opened.st_dev == checked.st_dev
        else {
            throw SystemCallError("open", path, errno: EAGAIN, reason: "the file changed while it was opened")
        }
        return file
    }

    /// Writes `bytes` beside `path` (as `path.new`, with exactly `mode`), then renames it over
    /// `path`: whoever reads `path` never sees half a file. `durable`: on the disk (the file, then
    /// its folder) before this returns, so that a power cut leaves the old file or the new one.
    /// When a call fails (a full disk, an I/O error, a read-only file system), `path` keeps what it
    /// had and `path.new` is removed: a full disk is not left fuller. `calls`: the system's, or a
    /// test's that fails one of them.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t = 0o644, durable: Bool = false, calls: FileCalls = .system
    ) throws(SystemCallError) {
        let temporary = path + ".new"
        let file = try Descriptor.open("open", temporary) {
            calls.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        }
        do throws(SystemCallError) {
            _ = try systemCall("fchmod", temporary) { fchmod(file.raw, mode) }
            var offset = 0
            while offset < bytes.count {
                let wrote = try systemCall("write", temporary) {
                    bytes[offset...].withUnsafeBytes { calls.write(file.raw, $0.baseAddress, $0.count) }
                }
                guard wrote > 0 else { throw SystemCallError("write", temporary, errno: EIO, reason: "wrote nothing") }
                offset += wrote
            }
            if durable { _ = try systemCall("fsync", temporary) { calls.fsync(file.raw) } }
            _ = try systemCall("rename", path) { calls.rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        if durable {
            let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            let directory = try Descriptor.open("open", folder.isEmpty ? "." : folder) {
                Glibc.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
            _ = try systemCall("fsync", folder) { calls.fsync(directory.raw) }
        }
    }

    /// Makes `path` a symbolic link to `destination`: a new link beside it (`path.new`), renamed
    /// over whatever was there, so that `path` is never missing in between (a zone link read by
    /// another program, a unit's wants link).
    public static func replaceLink(_ path: String, to destination: String) throws(SystemCallError) {
        let temporary = path + ".new"
        unlink(temporary)
        do throws(SystemCallError) {
            _ = try systemCall("symlink", temporary) { symlink(destination, temporary) }
            _ = try systemCall("rename", path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The first `count` bytes (fewer when the file is shorter) of the regular file at `path`; nil
    /// when it cannot be opened or is not a regular file.
    public static func head(_ path: String, count: Int) -> [UInt8]? {
        guard let file = try? open(path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = file.withRaw { fd in bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count) } }
        guard got >= 0 else { return nil }
        return Array(bytes.prefix(got))
    }

    /// Whether `path` is a regular file (symbolic links followed) this process may execute: by
    /// `stat` and `access` alone, nothing opened or run.
    public static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// `fstat` of an open descriptor.
    public static func status(of fd: Int32, _ path: String) throws(SystemCallError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemCallError("fstat", path) }
        return info
    }

    /// Linux's `O_PATH` (010000000 on x86-64 and arm64 alike), which Glibc's module hides behind
    /// `_GNU_SOURCE`.
    static let pathOnly: Int32 = 0o10000000

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a folder"
        case S_IFSOCK: "a socket"
        default: "not a plain file"
        }
    }
}

/// The system calls `RegularFile.replace` makes, as values: the system's (`system`), or a test's
/// that fails one of them, with the errno a full disk, a failing card or a read-only file system
/// gives, so that the error paths are tested in-process, as swift-system tests its own. A failing
/// call returns -1 with `errno` set, as the system's do.
public struct FileCalls: Sendable {
    public var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    public var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int
    public var fsync: @Sendable (_ fd: Int32) -> Int32
    public var rename: @Sendable (_ from: String, _ to: String) -> Int32

    public init(
        open: @escaping @Sendable (String, Int32, mode_t) -> Int32,
        write: @escaping @Sendable (Int32, UnsafeRawPointer?, Int) -> Int,
        fsync: @escaping @Sendable (Int32) -> Int32, rename: @escaping @Sendable (String, String) -> Int32
    ) {
        self.open = open
        self.write = write
        self.fsync = fsync
        self.rename = rename
    }

    public static let system = FileCalls(
        open: { Glibc.open($0, $1, $2) }, write: { Glibc.write($0, $1, $2) }, fsync: { Glibc.fsync($0) },
        rename: { Glibc.rename($0, $1) })
}
