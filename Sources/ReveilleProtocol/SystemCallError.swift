import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: which call, on what, and errno.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let subject: String
    public let errno: Int32

    public init(_ call: String, _ subject: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    /// `connect /run/reveille/control.sock: No such file or directory`
    public var description: String {
        "\(call) \(subject): \(String(cString: strerror(errno)))"
    }
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

/// Why a file could not be read, in the words a person needs: the system's reason (`Permission
/// denied`), `no such file`, `not UTF-8 text`, else Foundation's description.
public enum FileProblem {
    public static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadInapplicableStringEncodingError {
            return "not UTF-8 text"
        }
        return nsError.localizedDescription
    }
}
