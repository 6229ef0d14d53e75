import CReveilleShims
import Glibc
import ReveilleProtocol

/// The listening Unix socket (socket, bind, listen, accept4). Owns the descriptor and the socket file.
final class Listener {
    let path: String
    let fd: Int32

    /// Binds `path`. A stale socket file left by a crash is replaced; a live one (another daemon
    /// answering on it) is an error. The file gets mode 0660 and, when given, the group `group`.
    init(path: String, group: gid_t?) throws {
        if access(path, F_OK) == 0 {
            if (try? ControlClient(path: path)) != nil {
                throw Refusal(.busy, "another reveilled is already listening on \(path); stop it first")
            }
            unlink(path)
        }
        let fd = try systemCall("socket", path) {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            var address = try unixAddress(path)
            try systemCall("bind", path) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            try systemCall("chmod", path) { chmod(path, 0o660) }
            if let group {
                try systemCall("chown", path) { chown(path, uid_t.max, group) }  // uid -1: keep the owner
            }
            try systemCall("listen", path) { listen(fd, 64) }
            try systemCall("fcntl(O_NONBLOCK)", path) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        } catch {
            close(fd)
            throw error
        }
        self.path = path
        self.fd = fd
    }

    /// The next waiting connection (non-blocking, close-on-exec); nil when none waits. Errors
    /// other than "none waits" are returned for the caller to log.
    func accept() -> Result<Int32, SystemCallError>? {
        while true {
            let connection = RV_accept_cloexec(fd)
            if connection >= 0 { return .success(connection) }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN: return nil
            default: return .failure(SystemCallError("accept4", path))
            }
        }
    }

    /// Stops accepting and removes the socket file.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        unlink(path)
    }

    deinit {
        close(fd)
    }
}
