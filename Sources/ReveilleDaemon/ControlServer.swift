import Foundation
import Glibc
import Logging
import ReveilleProtocol

/// Serves the control socket (README, "Who may do what") on the event loop: accepts, reads request lines, answers
/// them through the controller, parks what must wait (a tap, a sound device), and streams `watch`
/// events. Nothing here blocks; a slow client never holds up another.
final class ControlServer {
    let listener: Listener
    let access: PeerAccess
    let controller: Controller
    let loop: EventLoop
    let doorbell: Doorbell
    let logger: Logger
    private var connections: [Int: Connection] = [:]
    private var nextID = 1
    /// Idle connections, drains and tag waits end at this timer.
    private let deadlines: LoopTimer
    private var armedDeadline: Double?

    /// Connections served at once; more are told the daemon is busy.
    static let maxConnections = 32

    init(
        listener: Listener, access: PeerAccess, controller: Controller, loop: EventLoop, doorbell: Doorbell,
        logger: Logger
    ) throws {
        self.listener = listener
        self.access = access
        self.controller = controller
        self.loop = loop
        self.doorbell = doorbell
        self.logger = logger
        deadlines = try LoopTimer(.monotonic, logger: logger)
        try loop.watch(listener.fd) { [unowned self] _ in acceptWaiting() }
        try loop.watch(deadlines.fd) { [unowned self] _ in
            _ = deadlines.acknowledge()
            armedDeadline = nil
            expire()
        }
        controller.deliver = { [unowned self] id, response in answerParked(id, response) }
        controller.onPublish = { [unowned self] event in publish(event) }
    }

    // MARK: Accepting

    private func acceptWaiting() {
        while let result = listener.accept() {
            let fd: Int32
            switch result {
            case .success(let value): fd = value
            case .failure(let error):
                logger.warning("control socket: \(error)")
                return  // out of descriptors: the backlog waits for the next readiness
            }
            let peer: Peer
            do {
                peer = try Peer.of(socket: fd)
            } catch {
                logger.warning("dropping a connection whose credentials cannot be read: \(error)")
                close(fd)
                continue
            }
            guard connections.count < ControlServer.maxConnections else {
                let busy = Framing.encode(
                    Response.failure(.busy, "reveilled is serving too many connections; try again in a moment"))
                _ = busy.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                close(fd)
                logger.warning("\(peer): refused, \(ControlServer.maxConnections) connections already open")
                continue
            }
            let connection = Connection(
                id: nextID, fd: fd, peer: peer, role: access.role(of: peer), now: Controller.monotonic())
            nextID += 1
            do {
                try loop.watch(fd) { [unowned self] events in serve(connection, events: events) }
            } catch {
                logger.error("control socket: \(error)")
                close(fd)
                continue
            }
            connections[connection.id] = connection
        }
        rearm()
    }

    // MARK: Serving

    private func serve(_ connection: Connection, events: UInt32) {
        defer { rearm() }
        if events & EventLoop.writable != 0 {
            guard connection.flush() else { return drop(connection) }
            if connection.output.isEmpty {
                guard !connection.closing else { return drop(connection) }
                loop.change(connection.fd, events: EventLoop.readable)
            }
        }
        guard !connection.closing, events & (EventLoop.readable | EventLoop.hangUp) != 0 else { return }
        let open = connection.receive()
        connection.lastHeard = Controller.monotonic()
        process(connection)
        guard !open else { return }
        // The client has closed its side: what is still queued goes out first, unless it is gone.
        if connection.output.isEmpty || events & EventLoop.hangUp != 0 {
            drop(connection)
        } else {
            connection.closing = true
            loop.change(connection.fd, events: EventLoop.writable)
        }
    }

    /// Answers the complete lines that have arrived, unless a request is parked.
    private func process(_ connection: Connection) {
        while case .serving = connection.phase, connections[connection.id] != nil {
            let line: [UInt8]
            do {
                guard let next = try connection.input.nextLine() else { return }
                line = next
            } catch {
                logger.notice("\(connection.peer): request longer than \(Framing.maxLineBytes) bytes; disconnecting")
                reply(
                    .failure(
                        .tooLarge, "request too large: a request is one line of at most \(Framing.maxLineBytes) bytes"),
                    to: connection)
                shutdown(connection.fd, Int32(SHUT_WR))
                connection.input = LineBuffer()
                connection.phase = .draining(until: Controller.monotonic() + 1)
                return
            }
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
            switch Connection.decode(line) {
            case .failure(let error): reply(error.response, to: connection)
            case .success(let request):
                switch role(for: request, on: connection) {
                case .success(let role): dispatch(request.op, role: role, from: connection)
                case .failure(let refusal): reply(refusal.response, for: request.op, to: connection)
                }
            }
        }
    }

    /// The rights `request` is served with: the connection's, lowered by the request's `cap`, and
    /// those of the paired web device whose token it carries (never more than the connection's).
    private func role(for request: Request, on connection: Connection) -> Result<Role, Connection.ReplyError> {
        var role = min(connection.role, request.cap ?? connection.role)
        if let token = request.device {
            guard let deviceRole = controller.webDeviceRole(token: token) else {
                return .failure(Connection.ReplyError(.failure(.forbidden, WebDevice.unknown)))
            }
            role = min(role, deviceRole)
        }
        return .success(role)
    }

    private func dispatch(_ operation: Command, role: Role, from connection: Connection) {
        let refusal = { [access] in access.refusal(operation, role: role, peer: connection.peer) }
        switch operation {
        case .watch:
            guard role >= operation.requiredRole else {
                return reply(.failure(.forbidden, refusal()), for: operation, to: connection)
            }
            reply(Response(message: "watching; one line per change"), for: operation, to: connection)
            connection.phase = .watching
        case .tagAdd(_, nil, _), .tagTest:
            if let answer = controller.waitForTap(
                operation, role: role, connection: connection.id, refusal: refusal)
            {
                reply(answer, for: operation, to: connection)
            } else {
                connection.phase = .parked
            }
        case .soundTest:
            switch controller.planSoundTest(operation, role: role, refusal: refusal) {
            case .answer(let response): reply(response, for: operation, to: connection)
            case .play(let request, let seconds):
                connection.phase = .parked
                let id = connection.id
                let (audio, doorbell) = (controller.ring.audio, doorbell)
                let thread = Thread {
                    doorbell.post(.reply(connection: id, SoundTest.play(request, seconds: seconds, on: audio)))
                }
                thread.name = "sound-test"
                thread.start()
            }
        default:
            let response = controller.handle(operation, role: role, peer: connection.peer, refusal: refusal)
            reply(response, for: operation, to: connection)
        }
    }

    /// The answer to a parked request (a tap came, a wait ran out, a sound test started).
    func answerParked(_ id: Int, _ response: Response) {
        guard let connection = connections[id], case .parked = connection.phase else { return }
        connection.phase = .serving
        connection.lastHeard = Controller.monotonic()
        reply(response, to: connection)
        process(connection)
        rearm()
    }

    private func reply(_ response: Response, for operation: Command, to connection: Connection) {
        if let error = response.error {
            let level: Logger.Level = error.code == .forbidden ? .notice : .info
            logger.log(level: level, "\(connection.peer) '\(operation.name)': \(error.code.rawValue): \(error.message)")
        } else {
            logger.debug("\(connection.peer) '\(operation.name)': ok")
        }
        reply(response, to: connection)
    }

    private func reply(_ response: Response, to connection: Connection) {
        send(Framing.encode(response), to: connection)
    }

    private func send(_ bytes: [UInt8], to connection: Connection) {
        guard connections[connection.id] != nil else { return }
        guard connection.send(bytes) else { return drop(connection) }
        if !connection.output.isEmpty {
            if case .watching = connection.phase, connection.output.count > Connection.maxWatchBacklog {
                logger.notice("\(connection.peer): watcher stopped reading; disconnecting")
                return drop(connection)
            }
            loop.change(connection.fd, events: EventLoop.readable | EventLoop.writable)
        }
    }

    // MARK: Watching

    private func publish(_ event: WatchEvent) {
        let line = Framing.encode(WatchLine(event))
        for connection in connections.values {
            if case .watching = connection.phase { send(line, to: connection) }
        }
    }

    // MARK: Ending

    private func drop(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if case .parked = connection.phase, controller.tagWait?.connection == connection.id {
            controller.endTagWait(answer: false)
        }
        loop.unwatch(connection.fd)
        close(connection.fd)
    }

    /// Lets idle clients go, ends drains and tag waits that ran out.
    private func expire() {
        let now = Controller.monotonic()
        for connection in connections.values {
            guard let deadline = connection.deadline, deadline <= now else { continue }
            drop(connection)
        }
        if let wait = controller.tagWait, wait.deadline <= now { controller.endTagWait() }
        rearm()
    }

    /// Arms the deadline timer at the earliest deadline; disarmed when none (an idle daemon sleeps).
    private func rearm() {
        let earliest = (connections.values.compactMap(\.deadline) + [controller.tagWait?.deadline].compactMap { $0 })
            .min()
        guard earliest != armedDeadline else { return }
        armedDeadline = earliest
        deadlines.arm(after: earliest.map { max(0.001, $0 - Controller.monotonic()) } ?? 0)
    }

    /// Closes every connection and the socket.
    func stop() {
        for connection in Array(connections.values) { drop(connection) }
        loop.unwatch(listener.fd)
        listener.stop()
    }
}
