import Foundation
import Glibc
import Logging
import ReveilleProtocol
import Synchronization

/// Serves the control socket (SPEC §9) until stopped.
///
/// `accept` blocks, so it runs on a thread of its own; each connection gets a thread too, up to
/// `maxConnections`, so that a slow client never holds up another.
public struct ControlServer: Sendable {
    let path: String
    let access: PeerAccess
    let controller: Controller
    let logger: Logger

    /// Connections served at once; more are told the daemon is busy.
    static let maxConnections = 32

    public init(path: String, access: PeerAccess, controller: Controller, logger: Logger) {
        self.path = path
        self.access = access
        self.controller = controller
        self.logger = logger
    }

    /// Binds the socket and starts accepting; returns the listener, to `stop()` it.
    func start() throws -> Listener {
        let listener = try Listener(path: path, group: access.socket.id)
        logger.info("listening on \(path)")
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.name = "control-accept"
        thread.start()
        return listener
    }

    private func acceptLoop(_ listener: Listener) {
        let open = Atomic<Int>(0)
        while let fd = listener.accept() {
            let peer: Peer
            do {
                peer = try Peer.of(socket: fd)
            } catch {
                logger.warning("dropping a connection whose credentials cannot be read: \(error)")
                close(fd)
                continue
            }
            guard open.add(1, ordering: .relaxed).newValue <= ControlServer.maxConnections else {
                open.subtract(1, ordering: .relaxed)
                let busy = Framing.encode(
                    Response.failure(.busy, "reveilled is serving too many connections; try again in a moment"))
                _ = busy.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                close(fd)
                logger.warning("\(peer): refused, \(ControlServer.maxConnections) connections already open")
                continue
            }
            let connection = Connection(
                fd: fd, peer: peer, role: access.role(of: peer), access: access, controller: controller,
                logger: logger)
            let worker = Thread {
                connection.serve()
                open.subtract(1, ordering: .relaxed)
            }
            worker.name = "control-connection"
            worker.start()
        }
    }
}
