import CReveilleShims
import Glibc
import ReveilleProtocol
import ReveilleSystem

/// The listening Unix socket (socket, bind, listen, accept4). Owns the descriptor and the socket file.
final class Listener {
    let path: String
    private let socket: Descriptor
    var fd: Int32 { socket.raw }

    /// Binds `path`. A stale socket file left by a crash is replaced; a live one (another daemon
    /// answering on it) is an error. The file gets `mode` (0660: the control socket, for its
    /// group; 0666: the apps socket, which answers anyone about their own apps only) and, when
    /// given, the group `group`.
    init(path: String, group: gid_t?, mode: mode_t = 0o660) throws {
        if access(path, F_OK) == 0 {
            if (try? ControlClient(path: path)) != nil {
                throw Refusal(.busy, "another reveilled is already listening on \(path); stop it first")
            }
            unlink(path)  // a stale file; if it cannot go, `bind` below says why
        }
        let socket = try Descriptor.open("socket", path) {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let fd = socket.raw  // `socket` lives on in `self`, or goes with what is thrown
        var address = try unixAddress(path)
        try systemCall("bind", path) {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        try systemCall("chmod", path) { chmod(path, mode) }
        if let group {
            try systemCall("chown", path) { chown(path, uid_t.max, group) }  // uid -1: keep the owner
        }
        try systemCall("listen", path) { listen(fd, 64) }
        try systemCall("fcntl(O_NONBLOCK)", path) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.path = path
        self.socket = socket
    }

    /// The next waiting connection (non-blocking, close-on-exec); nil when none waits. Errors
    /// other than "none waits" are returned for the caller to log.
    func accept() -> Result<Descriptor, SystemCallError>? {
        while true {
            let connection = RV_accept_cloexec(fd)
            if connection >= 0 { return .success(Descriptor(taking: connection)) }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN: return nil
            default: return .failure(SystemCallError("accept4", path))
            }
        }
    }

    /// Stops accepting and removes the socket file.
    func stop() {
        // Refuses what still knocks; whether it worked changes nothing, the descriptor closes with
        // this listener.
        _ = shutdown(fd, Int32(SHUT_RDWR))
        unlink(path)
    }
}
