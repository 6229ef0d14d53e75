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
    /// Throws an `AudioError` naming `open` or `fstat` and what is wrong.
    public static func open(_ path: String) throws -> Int32 {
        let handle = Glibc.open(path, RegularFile.pathOnly | O_CLOEXEC)
        guard handle >= 0 else { throw AudioError("open", target: path, code: errno, message: reason(errno)) }
        defer { close(handle) }
        var checked = stat()
        guard fstat(handle, &checked) == 0 else {
            throw AudioError("fstat", target: path, code: errno, message: reason(errno))
        }
        guard checked.st_mode & S_IFMT == S_IFREG else {
            throw AudioError(
                "fstat", target: path, code: EINVAL, message: "not a regular file (\(kind(checked.st_mode)))")
        }
        var fd = Glibc.open("/proc/self/fd/\(handle)", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0, errno == ENOENT {
            // No /proc (a bare chroot): the next best, which still never follows a last link.
            fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        }
        guard fd >= 0 else { throw AudioError("open", target: path, code: errno, message: reason(errno)) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_ino == checked.st_ino,
            opened.st_dev == checked.st_dev
        else {
            close(fd)
            throw AudioError("open", target: path, code: EAGAIN, message: "the file changed while it was opened")
        }
        return fd
    }

    /// Linux's `O_PATH` (010000000 on x86-64 and arm64 alike), which Glibc's module hides behind
    /// `_GNU_SOURCE`.
    static let pathOnly: Int32 = 0o10000000

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

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
