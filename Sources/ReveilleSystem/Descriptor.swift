import CReveilleShims
import Glibc

/// An open file descriptor that closes itself: when the last reference to it goes, the descriptor
/// is closed, once. Owners (an event loop, a connection, a timer) hold one for as long as they
/// need the descriptor; a function that opens one for a moment uses it inside `withRaw`, which
/// keeps it open until the body returns (Swift may otherwise end an object's life after its last
/// use, before the system call that received its number).
///
/// Sendable: the number never changes, and `close` runs once, in `deinit`.
public final class Descriptor: Sendable, CustomStringConvertible {
    /// The descriptor's number, for the C call that needs it.
    public let raw: Int32

    /// Takes ownership of `raw`, an open descriptor nobody else will close.
    public init(taking raw: Int32) {
        self.raw = raw
    }

    deinit {
        // On Linux close releases the descriptor even when it reports an error (EINTR, EIO): there
        // is nothing to retry, and a write's failure was reported by the write.
        _ = Glibc.close(raw)
    }

    /// Runs `body` with the number, this descriptor open throughout.
    public func withRaw<T, E: Error>(_ body: (Int32) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in try body(raw) }
    }

    public var description: String { "fd \(raw)" }

    /// A descriptor from a call that returns one, or the failure (retried on EINTR).
    public static func open(_ call: String, _ subject: String, _ body: () -> Int32) throws(SystemCallError)
        -> Descriptor
    {
        Descriptor(taking: try systemCall(call, subject, body))
    }

    /// Both ends of a close-on-exec pipe: (read, write).
    public static func pipe() throws(SystemCallError) -> (read: Descriptor, write: Descriptor) {
        var ends: [Int32] = [-1, -1]
        guard RV_pipe_cloexec(&ends) == 0 else { throw SystemCallError("pipe2", "a pipe") }
        return (Descriptor(taking: ends[0]), Descriptor(taking: ends[1]))
    }
}
