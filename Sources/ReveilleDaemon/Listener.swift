import CReveilleShims
import Glibc
import ReveilleProtocol

/// The listening Unix socket (socket, bind, listen, accept4). Owns the descriptor and the socket file.
final class Listener: Sendable {
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
        } catch {
            close(fd)
            throw error
        }
        self.path = path
        self.fd = fd
    }

    /// Waits for the next connection; nil once `stop()` was called.
    func accept() -> Int32? {
        while true {
            let connection = RV_accept_cloexec(fd)
            if connection >= 0 { return connection }
            switch errno {
            case EINTR, ECONNABORTED, EAGAIN: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors: back off instead of spinning; connections wait in the backlog.
                usleep(100_000)
            default: return nil  // EINVAL after shutdown(): we are stopping.
            }
        }
    }

    /// Wakes a blocked `accept()` and removes the socket file.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        unlink(path)
    }

    deinit {
        close(fd)
    }
}
