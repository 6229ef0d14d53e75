import FoundationEssentials
import Glibc
import ReveilleSystem
import Logging
import ReveilleProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `reveille-web`'s side of the control socket: one short connection per relayed request, made on
/// a thread of the pool (the socket calls block), and one long connection following `watch`.
public final class DaemonLink: Sendable {
    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `request` and returns the daemon's reply as it came, or an error reply of our own when
    /// the daemon cannot be reached.
    public func send(_ request: Request) -> Response {
        do {
            let client = try ControlClient(path: socketPath)
            try client.sendRaw(Framing.encode(request))
            guard let line = try client.readLine() else { throw ControlClient.Failure.closed }
            return try JSONDecoder().decode(Response.self, from: Data(line))
        } catch let failure as ControlClient.Failure {
            return .failure(.unavailable, failure.description)
        } catch {
            return .failure(.unavailable, "reveilled sent a reply reveille-web cannot read: \(error)")
        }
    }
}

/// Fans the daemon's `watch` stream out to the open pages, as server-sent events. A thread of its
/// own reads the stream (blocking); when the daemon goes away it says so, tries again after 1, 2,
/// 4, then every 5 seconds, and says so again when it is back. Nothing runs while all is quiet.
///
/// The stream obeys the rule the commands obey: an event about one person (a request for more
/// time, the app they run, a notice or a reminder of theirs) reaches only a page with the
/// household's admin rights, and a phone paired for that person; any other page hears that
/// something changed, and reads what it may.
public final class EventHub: Sendable {
    private struct Page {
        var continuation: AsyncStream<String>.Continuation
        /// May read what is about each person of the household (an admin's browser).
        var seesEveryone: Bool
        /// The child a phone is paired for: what is about them it may read.
        var person: String?

        func mayRead(about user: String) -> Bool { seesEveryone || user == person }
    }

    private struct State {
        var next = 0
        var pages: [Int: Page] = [:]
        var daemonUp = false
        /// The port the page is served on, told to the daemon at each connection.
        var servingPort: Int?
    }

    private let state = Mutex(State())
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public var daemonUp: Bool { state.withLock { $0.daemonUp } }
    public var pageCount: Int { state.withLock { $0.pages.count } }

    /// A stream of event texts for one page, ended when `close` is called with the id. `role` and
    /// `person`: the rights the daemon gave the browser and the child it is paired for, which
    /// decide what it hears about people.
    public func subscribe(role: Role, person: String? = nil) -> (id: Int, events: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            state.next += 1
            state.pages[state.next] = Page(
                continuation: continuation, seesEveryone: role >= .admin, person: role >= .admin ? nil : person)
            return state.next
        }
        continuation.onTermination = { [weak self] _ in self?.close(id) }
        return (id, stream)
    }

    public func close(_ id: Int) {
        let page = state.withLock { $0.pages.removeValue(forKey: id) }
        page?.continuation.finish()
    }

    /// What a page without the right to read about people hears instead of such an event.
    static let somethingChanged = "event: change\ndata: {}\n\n"

    /// One server-sent event to every open page; a line of the watch stream about one person
    /// (`WatchEvent.user`) only to the pages that may read it, `somethingChanged` to the others.
    public func broadcast(event: String, data: String) {
        let text = "event: \(event)\ndata: \(data.replacing("\n", with: " "))\n\n"
        let pages = state.withLock { Array($0.pages.values) }
        guard event == "change" else {
            for page in pages { page.continuation.yield(text) }
            return
        }
        // A line this server cannot read is taken to be about someone: the rule fails closed, and
        // only an admin's page hears it.
        let line = try? JSONDecoder().decode(WatchLine.self, from: Data(data.utf8))
        for page in pages {
            let mayHear = line.map { $0.event.user.map(page.mayRead(about:)) ?? true } ?? page.seesEveryone
            page.continuation.yield(mayHear ? text : Self.somethingChanged)
        }
    }

    /// The page is served on `port`: the daemon is told now (if it is there) and at each
    /// reconnection, so that `reveille web pair` names the right address.
    public func serving(port: Int, socketPath: String) {
        state.withLock { $0.servingPort = port }
        announce(socketPath: socketPath)
    }

    private func announce(socketPath: String) {
        guard let port = state.withLock({ $0.servingPort }) else { return }
        let reply = try? ControlClient(path: socketPath).send(.webServing(port: port))
        if let error = reply?.error { logger.notice("could not tell reveilled the page's port: \(error.message)") }
    }

    /// Follows the daemon at `socketPath` on a thread of its own, for the life of the process.
    public func follow(socketPath: String) {
        Threads.start("watch") { [self] in
            var delay: UInt32 = 1
            var saidDown = false
            while true {
                if run(socketPath: socketPath) {
                    delay = 1
                    saidDown = false
                }
                state.withLock { $0.daemonUp = false }
                if !saidDown {
                    logger.warning("no reveilled at \(socketPath); trying again")
                    broadcast(event: "daemon", data: "down")
                    saidDown = true
                }
                sleep(delay)
                delay = min(delay * 2, 5)
            }
        }
    }

    /// One connection's life: true when it was watching before it ended.
    private func run(socketPath: String) -> Bool {
        guard let client = try? ControlClient(path: socketPath),
            let reply = try? client.send(.watch), reply.ok
        else { return false }
        state.withLock { $0.daemonUp = true }
        logger.info("following reveilled at \(socketPath)")
        announce(socketPath: socketPath)
        broadcast(event: "daemon", data: "up")
        while let line = try? client.readLine() {
            broadcast(event: "change", data: String(decoding: line, as: UTF8.self))
        }
        return true
    }
}
