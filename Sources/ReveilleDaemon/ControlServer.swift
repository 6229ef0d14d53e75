import FoundationEssentials
import Glibc
import Logging
import ReveilleProtocol
import ReveilleSystem
import ReveilleCore
import ReveilleLaunch

/// Serves the control socket (docs/guide/rights.md, "Who may do what") on the event loop: accepts, reads request lines, answers
/// them through the controller, parks what must wait (a tap, a sound device), and streams `watch`
/// events. Nothing here blocks; a slow client never holds up another.
///
/// Fair to everyone (docs/guide/rights.md, "Limits on the control socket"):
/// - a household member (user rights) holds at most `perUserConnections` connections, and they all
///   share `maxConnections`; admins have a reserve above that, and root and the daemon's own user
///   are admitted up to `hardLimit`, so a user's forgotten `status --watch` loops never lock root out;
/// - one request per connection per turn of the loop, none in the last `Controller.quietBeforeWake` seconds
///   before the machine's wake (a ring), so no client delays a ring;
/// - a connection whose replies are not read stops being read (`Connection.maxUnsentBytes`);
/// - a line must arrive whole within `Connection.lineTimeoutSeconds`, and a silent client goes
///   after `Connection.idleTimeoutSeconds`;
/// - out of descriptors, the listener rests a second instead of spinning.
final class ControlServer {
    let listener: Listener
    /// The apps socket: every connection through it has no rights beyond the caller's own apps.
    let appsListener: Listener?
    let access: PeerAccess
    let requests: Requests
    let loop: EventLoop
    let doorbell: Doorbell
    let logger: Logger
    /// What each peer's requests may make the daemon log (the log handler's budget).
    let logLines: PeerLogBudget
    /// Idle clients, line timeouts and drains are measured on its `elapsed()`.
    let clock: any Clocks
    private var connections: [Int: Connection] = [:]
    private var nextID = 1
    /// Idle connections, drains and tag waits end at this timer.
    private let deadlines: LoopTimer
    private var armedDeadline: Double?
    /// Wakes the loop for the next turn of connections that have requests waiting.
    private let turns: LoopTimer
    /// Connections with requests left over from their turn, in the order they wait.
    private var waitingTurn: [Int] = []
    /// Re-opens the listener after it rested for want of descriptors.
    private let listenerRest: LoopTimer
    private var listenerResting = false
    /// Since when (monotonic) accepting fails for want of descriptors; nil while it works.
    private var outOfDescriptorsSince: Double?

    /// Connections served at once for everyone; past it only admins, root and the daemon's user.
    static let maxConnections = 48
    /// Admins' reserve above `maxConnections` (the page's relays are admin connections).
    static let adminReserve = 16
    /// Root and the daemon's own user are turned away only past this many connections in all.
    static let hardLimit = 96
    /// Connections one household member (user rights) may hold at once.
    static let perUserConnections = 8
    /// Connections one user with no rights here may hold (a child's notifier, `apps ask`), and all
    /// of them together: they never take the household's places.
    static let perStrangerConnections = 4
    static let strangerConnections = 16
    /// Connections one admin user may hold at once (reveille-web relays each request on its own).
    static let perAdminConnections = 32
    /// Requests answered per connection per turn of the loop.
    static let requestsPerTurn = 1
    /// Requests wait while the machine's wake is closer than this: the ring goes first.

    init(
        listener: Listener, appsListener: Listener? = nil, access: PeerAccess, requests: Requests, feed: WatchFeed,
        loop: EventLoop, doorbell: Doorbell, clock: any Clocks, logger: Logger, logLines: PeerLogBudget = .shared
    ) throws {
        self.clock = clock
        self.logLines = logLines
        self.listener = listener
        self.appsListener = appsListener
        self.access = access
        self.requests = requests
        self.loop = loop
        self.doorbell = doorbell
        self.logger = logger
        deadlines = try LoopTimer(.monotonic, logger: logger)
        turns = try LoopTimer(.monotonic, logger: logger)
        listenerRest = try LoopTimer(.monotonic, logger: logger)
        try loop.watch(listener.fd) { [unowned self] _ in acceptWaiting(on: listener) }
        if let appsListener {
            try loop.watch(appsListener.fd) { [unowned self] _ in acceptWaiting(on: appsListener, ownAppsOnly: true) }
        }
        try loop.watch(turns.fd) { [unowned self] _ in
            _ = turns.acknowledge()
            nextTurn()
        }
        try loop.watch(listenerRest.fd) { [unowned self] _ in
            _ = listenerRest.acknowledge()
            listenerResting = false
            loop.change(listener.fd, events: EventLoop.readable)
            acceptWaiting(on: listener)
            if let appsListener {
                loop.change(appsListener.fd, events: EventLoop.readable)
                acceptWaiting(on: appsListener, ownAppsOnly: true)
            }
        }
        try loop.watch(deadlines.fd) { [unowned self] _ in
            _ = deadlines.acknowledge()
            armedDeadline = nil
            expire()
        }
        feed.subscribe { [unowned self] event in publish(event) }
    }

    // MARK: Accepting

    /// `ownAppsOnly`: the apps socket's connections, served with no rights beyond the caller's
    /// own apps whoever the caller is.
    private func acceptWaiting(on listener: Listener, ownAppsOnly: Bool = false) {
        while !listenerResting, let result = listener.accept() {
            let socket: Descriptor
            switch result {
            case .success(let value): socket = value
            case .failure(let error):
                // Out of descriptors (EMFILE, ENFILE): the listener would stay readable and the loop
                // spin. It rests a second at a time (logged once); the timers and the open
                // connections go on meanwhile.
                if outOfDescriptorsSince == nil {
                    outOfDescriptorsSince = clock.elapsed()
                    logger.warning("control socket: \(error); not accepting, trying again every second")
                }
                listenerResting = true
                loop.change(self.listener.fd, events: 0)
                if let appsListener { loop.change(appsListener.fd, events: 0) }
                listenerRest.arm(after: 1)
                return
            }
            if let since = outOfDescriptorsSince {
                outOfDescriptorsSince = nil
                logger.notice(
                    "control socket: accepting again, after \(Int(clock.elapsed() - since)) s out of descriptors"
                )
            }
            let peer: Peer
            do {
                peer = try Peer.of(socket: socket.raw)
            } catch {
                logger.warning("dropping a connection whose credentials cannot be read: \(error)")
                continue  // closed as `socket` goes
            }
            let role = ownAppsOnly ? .none : access.role(of: peer)
            if let refusal = admission(of: peer, role: role) {
                let busy = Framing.encode(Response.failure(.busy, refusal))
                // One try, never waiting: a client that cannot take the line learns from the close.
                _ = socket.withRaw { fd in
                    busy.withUnsafeBytes {
                        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                }
                logLines.serving(peer.uid, limited: role < .admin) { logger.warning("\(peer): refused: \(refusal)") }
                continue
            }
            let connection = Connection(
                id: nextID, socket: socket, peer: peer, role: role, now: clock.elapsed())
            nextID += 1
            do {
                try loop.watch(connection.fd) { [unowned self] events in serve(connection, events: events) }
            } catch {
                logger.error("control socket: \(error)")
                continue
            }
            connections[connection.id] = connection
        }
        rearm()
    }

    /// Why a new connection from `peer` is turned away, or nil when it is served.
    private func admission(of peer: Peer, role: Role) -> String? {
        let open = connections.count
        if open >= ControlServer.hardLimit {
            return "reveilled is serving too many connections (\(open)); try again in a moment"
        }
        if role == .owner { return nil }
        let limit =
            switch role {
            case .none: ControlServer.perStrangerConnections
            case .user: ControlServer.perUserConnections
            case .admin, .owner: ControlServer.perAdminConnections
            }
        let own = connections.values.reduce(0) { $0 + ($1.peer.uid == peer.uid ? 1 : 0) }
        if own >= limit {
            return
                "uid \(peer.uid) already has \(own) connections open, the most one user may; close some (a forgotten 'reveille status --watch'?) and try again"
        }
        let strangers = connections.values.reduce(0) { $0 + ($1.role == .none ? 1 : 0) }
        if role == .none {
            return strangers >= ControlServer.strangerConnections
                ? "reveilled is serving too many connections (\(open)); try again in a moment" : nil
        }
        let shared = ControlServer.maxConnections + (role >= .admin ? ControlServer.adminReserve : 0)
        if open - strangers >= shared {
            return "reveilled is serving too many connections (\(open)); try again in a moment"
        }
        return nil
    }

    // MARK: Serving

    private func serve(_ connection: Connection, events: UInt32) {
        defer {
            updateInterest(connection)
            rearm()
        }
        if events & EventLoop.writable != 0 {
            guard connection.flush() else { return drop(connection) }
            if connection.output.isEmpty, connection.closing { return drop(connection) }
            // Room again for replies: the requests that waited for the client to read go on.
            if connection.output.count <= Connection.maxUnsentBytes, connection.input.pendingCount > 0 {
                awaitTurn(connection)
            }
        }
        guard !connection.closing, events & (EventLoop.readable | EventLoop.hangUp) != 0 else { return }
        guard connection.mayRead else {
            // Not reading now (its replies wait): a hang-up still ends it.
            if events & EventLoop.hangUp != 0 { drop(connection) }
            return
        }
        let before = connection.input.pendingCount
        let open = connection.receive()
        if connection.input.pendingCount != before || !open { connection.lastHeard = clock.elapsed() }
        process(connection)
        guard !open else { return }
        // The client has closed its side: what is still queued goes out first, unless it is gone.
        if connection.output.isEmpty || events & EventLoop.hangUp != 0 {
            drop(connection)
        } else {
            connection.closing = true
        }
    }

    /// Asks epoll for what the connection needs now (reading stops while its replies wait).
    private func updateInterest(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        let wanted = connection.wantedEvents
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        loop.change(connection.fd, events: wanted)
    }

    /// Answers up to `requestsPerTurn` complete lines, unless a request is parked, its replies wait
    /// to be read, or a ring is about to be due; what is left waits for the next turn.
    private func process(_ connection: Connection) {
        // What its requests make the daemon log is counted against its user, unless an admin's.
        logLines.serving(connection.peer.uid, limited: connection.role < .admin) { answerLines(connection) }
    }

    private func answerLines(_ connection: Connection) {
        var answered = 0
        while case .serving = connection.phase, connections[connection.id] != nil {
            guard connection.output.count <= Connection.maxUnsentBytes else { return }
            if answered >= ControlServer.requestsPerTurn || ringIsClose() {
                if connection.input.pendingCount > 0 { awaitTurn(connection) }
                return
            }
            let line: [UInt8]
            do {
                guard let next = try connection.input.nextLine() else {
                    let pending = connection.input.pendingCount > 0
                    if !pending {
                        connection.partialSince = nil
                    } else if connection.partialSince == nil {
                        connection.partialSince = clock.elapsed()
                    }
                    return
                }
                line = next
                connection.partialSince = nil
            } catch {
                logger.notice("\(connection.peer): request longer than \(Framing.maxLineBytes) bytes; disconnecting")
                reply(
                    .failure(
                        .tooLarge, "request too large: a request is one line of at most \(Framing.maxLineBytes) bytes"),
                    to: connection)
                shutdown(connection.fd, Int32(SHUT_WR))
                connection.input = LineBuffer()
                connection.phase = .draining(until: clock.elapsed() + 1)
                return
            }
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
            answered += 1
            switch Connection.decode(line) {
            case .failure(let error): reply(error.response, to: connection)
            case .success(let request):
                switch rights(for: request, on: connection) {
                case .success(let rights):
                    dispatch(
                        request.op, role: rights.role, device: request.device, person: rights.person,
                        relayed: request.cap != nil, from: connection)
                case .failure(let refusal): reply(refusal.response, for: request.op, to: connection)
                }
            }
        }
    }

    /// Whether the machine's wake is close (`Controller.wakeIsClose`): requests then wait.
    private func ringIsClose() -> Bool { requests.controller.wakeIsClose() }

    /// Puts `connection` in line for the next turn, and makes sure a turn comes.
    private func awaitTurn(_ connection: Connection) {
        if !waitingTurn.contains(connection.id) { waitingTurn.append(connection.id) }
        let delay = ringIsClose() ? max(0.001, (requests.controller.secondsUntilWake() ?? 0) + 0.002) : 0
        turns.arm(after: max(delay, 0.000_001))
    }

    /// One request from each connection that had some left over, in the order they waited.
    private func nextTurn() {
        let turn = waitingTurn
        waitingTurn.removeAll()
        for id in turn {
            guard let connection = connections[id] else { continue }
            process(connection)
            updateInterest(connection)
        }
        rearm()
    }

    /// The rights `request` is served with: the connection's, lowered by the request's `cap`, and
    /// those of the paired web device whose token it carries (never more than the connection's),
    /// with the child that device is paired for.
    private func rights(for request: Request, on connection: Connection) -> Result<
        WebDeviceRights, Connection.ReplyError
    > {
        let role = min(connection.role, request.cap ?? connection.role)
        guard let token = request.device else { return .success(WebDeviceRights(role: role, person: nil)) }
        guard let device = requests.webDevice(token: token) else {
            return .failure(Connection.ReplyError(.failure(.forbidden, WebDevice.unknown)))
        }
        return .success(WebDeviceRights(role: min(role, device.role), person: device.person))
    }

    private func dispatch(
        _ operation: Command, role: Role, device: String?, person: String? = nil, relayed: Bool = false,
        from connection: Connection
    ) {
        let refusal = { [access] in access.refusal(operation, role: role, peer: connection.peer) }
        switch requests.serve(
            operation, role: role, peer: connection.peer, connection: connection.id, device: device, person: person,
            relayed: relayed, refusal: refusal)
        {
        case .answer(let response): reply(response, for: operation, to: connection)
        case .parked: connection.phase = .parked
        case .watching:
            reply(Response(message: "watching; one line per change"), for: operation, to: connection)
            connection.phase = .watching
            // Below the socket group: only what is about the watcher's own apps.
            if role < .user { connection.watchesOnly = ProcessOwner.name(of: connection.peer.uid) }
        }
    }

    /// The answer to a parked request (a tap came, a wait ran out, a sound test started).
    func answerParked(_ id: Int, _ response: Response) {
        guard let connection = connections[id], case .parked = connection.phase else { return }
        connection.phase = .serving
        connection.lastHeard = clock.elapsed()
        reply(response, to: connection)
        process(connection)
        updateInterest(connection)
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
            updateInterest(connection)
        }
    }

    // MARK: Watching

    private func publish(_ event: WatchEvent) {
        let now = requests.controller.now()
        let line = Framing.encode(WatchLine(event, at: now.time.withSeconds, instant: now.instant))
        for connection in connections.values {
            guard case .watching = connection.phase else { continue }
            if let only = connection.watchesOnly, event.user != only { continue }
            send(line, to: connection)
        }
    }

    // MARK: Ending

    private func drop(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        waitingTurn.removeAll { $0 == connection.id }
        if case .parked = connection.phase { requests.connectionLeft(connection.id) }
        loop.unwatch(connection.fd)  // the loop lets go of the connection: its socket closes
    }

    /// Lets idle clients go, ends drains and tag waits that ran out.
    private func expire() {
        let now = clock.elapsed()
        for connection in connections.values {
            guard let deadline = connection.deadline, deadline <= now else { continue }
            drop(connection)
        }
        requests.expire(now: now)
        rearm()
    }

    /// Arms the deadline timer at the earliest deadline; disarmed when none (an idle daemon sleeps).
    private func rearm() {
        let earliest = (connections.values.compactMap(\.deadline) + [requests.parkedDeadline].compactMap { $0 }).min()
        guard earliest != armedDeadline else { return }
        armedDeadline = earliest
        deadlines.arm(after: earliest.map { max(0.001, $0 - clock.elapsed()) } ?? 0)
    }

    /// Closes every connection and the socket.
    func stop() {
        for connection in Array(connections.values) { drop(connection) }
        loop.unwatch(listener.fd)
        listener.stop()
        if let appsListener {
            loop.unwatch(appsListener.fd)
            appsListener.stop()
        }
    }
}
