import FoundationEssentials
import Glibc
import ReveilleSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to the daemon's control socket: send a request, read its response.
public final class ControlClient {
    /// Why a request got no response.
    public enum Failure: Error, CustomStringConvertible {
        case unreachable(path: String, SystemCallError)
        case io(SystemCallError)
        case closed
        case garbled(String)

        public var description: String {
            switch self {
            case .unreachable(let path, let error) where error.errno == ENOENT || error.errno == ECONNREFUSED:
                "reveilled is not running (no answer at \(path)); start it with 'make run' or "
                    + "'sudo systemctl start reveille'"
            case .unreachable(let path, let error) where error.errno == EACCES:
                "no permission to use \(path); ask an admin to add you to the socket's group "
                    + "(see 'ls -l \(path)')"
            case .unreachable(_, let error): "cannot reach reveilled: \(error)"
            case .io(let error): "lost the connection to reveilled: \(error)"
            case .closed: "reveilled closed the connection without answering; see its log"
            case .garbled(let why):
                "reveilled sent a reply this client cannot read (\(why)); are both the same version?"
            }
        }
    }

    /// Connects to the control socket, or, for a command about the caller's own apps when the
    /// control socket is closed to them (not in its group), to the apps socket.
    public static func opening(for command: Command, paths: Paths) throws(Failure) -> ControlClient {
        do {
            return try ControlClient(path: paths.socket)
        } catch .unreachable(let path, let error) where error.errno == EACCES && command.requiredRole == .none {
            _ = path
            return try ControlClient(path: paths.appsSocket)
        }
    }

    private let socket: Descriptor
    private var fd: Int32 { socket.raw }
    private var buffer = LineBuffer(limit: 16 * 1024 * 1024)

    /// Connects to the socket at `path`.
    public init(path: String) throws(Failure) {
        let socket: Descriptor
        do {
            socket = try Descriptor.open("socket", path) {
                Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch {
            throw .unreachable(path: path, error)
        }
        let fd = socket.raw  // kept open by `socket`, stored below or let go with what is thrown
        do {
            var address = try unixAddress(path)
            try systemCall("connect", path) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch {
            throw .unreachable(path: path, error)
        }
        self.socket = socket
    }

    /// Sends one request and waits for its response.
    public func send(_ operation: Command) throws(Failure) -> Response {
        do {
            try sendRaw(Framing.encode(Request(operation)))
        } catch {
            // A daemon that refuses a connection (busy) says why, then closes: the reason is
            // already here to read, and it says more than "Broken pipe".
            if let line = try? readLine(), let refusal = try? JSONDecoder().decode(Response.self, from: Data(line)) {
                return refusal
            }
            throw error
        }
        guard let line = try readLine() else { throw .closed }
        do {
            return try JSONDecoder().decode(Response.self, from: Data(line))
        } catch {
            throw .garbled("\(error)")
        }
    }

    /// Writes bytes as they are: tests use it to send what no well-behaved client would.
    public func sendRaw(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io(SystemCallError("send", "control socket"))
            }
            offset += written
        }
    }

    /// The connected socket, for a client that polls it among others (the notifier).
    public var descriptor: Int32 { fd }

    /// A whole line already received and not yet read, without waiting for more.
    public func bufferedLine() -> [UInt8]? { try? buffer.nextLine() }

    /// Reads the next line the daemon sends, or nil when it closed the connection.
    public func readLine() throws(Failure) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            do {
                if let line = try buffer.nextLine() { return line }
            } catch {
                throw .garbled("reply too long")
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(SystemCallError("recv", "control socket"))
            }
            if count == 0 { return nil }
            buffer.append(chunk[..<count])
        }
    }
}
