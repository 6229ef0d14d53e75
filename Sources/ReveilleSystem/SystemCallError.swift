import Glibc

/// A failed system call: the C function, what it was called on, and errno. The one shape of a
/// system call's failure in Reveille: every module reports one this way, and words it for people
/// where it knows more (`reason`: "not a regular file (a FIFO)" for an `fstat` that found one).
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function: `open`, `fanotify_init`, `inotify_add_watch`.
    public let call: String
    /// What it was called on: a path, a socket, "event loop".
    public let subject: String
    public let errno: Int32
    /// Why, in words: the system's (`strerror`) unless the caller knows better.
    public let reason: String

    public init(_ call: String, _ subject: String, errno: Int32 = Glibc.errno, reason: String? = nil) {
        self.call = call
        self.subject = subject
        self.errno = errno
        self.reason = reason ?? String(cString: strerror(errno))
    }

    /// `connect /run/reveille/control.sock: No such file or directory`; `fanotify_init: …` when
    /// there is no subject to name.
    public var description: String { subject.isEmpty ? "\(call): \(reason)" : "\(call) \(subject): \(reason)" }

    /// The file or device is not there (ENOENT, ENODEV, ENXIO): unplugged, removed, not yet made.
    public var isAbsent: Bool { errno == ENOENT || errno == ENODEV || errno == ENXIO }
}

/// Runs a system call, retrying on EINTR; a negative result becomes a `SystemCallError`.
@discardableResult
public func systemCall<T: BinaryInteger>(_ call: String, _ subject: String, _ body: () -> T) throws(SystemCallError)
    -> T
{
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno != EINTR { throw SystemCallError(call, subject) }
    }
}

/// Fills a `sockaddr_un` for `path`, or fails when the path does not fit (108 bytes on Linux).
public func unixAddress(_ path: String) throws(SystemCallError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw SystemCallError("socket path", path, errno: ENAMETOOLONG) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return address
}
