import FoundationEssentials
import Glibc
import ReveilleSystem
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ReveilleCore
import ReveilleProtocol
import ServiceLifecycle
import Synchronization

typealias WebRequest = HummingbirdCore.Request
typealias WebResponse = HummingbirdCore.Response

/// The request context: Hummingbird's, plus the connection, whose address says loopback or not.
public struct WebContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    let localAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        localAddress = source.channel.localAddress
    }

    /// Whether the browser is this machine's kiosk: on loopback, and its socket owned by `kiosk`.
    func isKiosk(_ kiosk: uid_t?) -> Bool {
        guard let kiosk, remoteIsLoopback, let remote = remoteAddress, let local = localAddress,
            let browser = remote.ipAddress.flatMap({ LoopbackPeer.End($0, port: remote.port ?? -1) }),
            let server = local.ipAddress.flatMap({ LoopbackPeer.End($0, port: local.port ?? -1) })
        else { return false }
        return LoopbackPeer.owner(browser: browser, server: server) == kiosk
    }

    var remoteIsLoopback: Bool {
        switch remoteAddress {
        case .v4: remoteAddress?.ipAddress?.hasPrefix("127.") == true
        case .v6:
            remoteAddress?.ipAddress == "::1" || remoteAddress?.ipAddress?.hasPrefix("::ffff:127.") == true
        default: false
        }
    }

    var remoteName: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// `reveille-web`: the page, its API and its event stream (docs/guide/screen.md, "The screen").
public final class WebServer: Sendable {
    public static let deviceCookie = "reveille_device"
    /// The largest request body accepted: a command is a few hundred bytes.
    public static let maxBody = 16 * 1024

    let link: DaemonLink
    let hub: EventHub
    let csrf: CSRFGuard
    let limiter = Mutex(PairingLimiter())
    /// A request the daemon holds until something happens (a tag's tap, a sound test's first
    /// frame: `RelayPolicy.waits`) is being relayed: one at a time.
    let waiting = Mutex(false)
    let hosts: HostCheck
    let logger: Logger
    /// Connections that have not sent a whole request head yet, capped (`ConnectionGuard`).
    let unfinished = UnfinishedConnections(limit: WebServer.maxUnfinishedConnections)

    /// Connections sending their request head at once; past it the oldest is closed.
    public static let maxUnfinishedConnections = 128
    /// A connection that sends no request part for this long is closed (a half-sent head too).
    public static let idleSeconds: Int64 = 15

    /// What the page's alarm sheet shows for a new alarm, and each setting's help (`Page.settings`).
    let pageSettings: String
    /// The installed apps' icons, for the app sheet (`GET /icon/NAME`).
    let icons: AppIcons
    /// The kiosk's user: its browsers on loopback get the household's rights unpaired. nil: no one's.
    let kiosk: uid_t?
    /// Where the page is served (address, bound port), once it is: the first boot's screen shows
    /// the kiosk where a phone opens it (`PhoneAddresses`).
    let served = ServedAt()

    final class ServedAt: Sendable {
        let address = Mutex<(host: String, port: Int)?>(nil)
    }

    public init(
        socketPath: String, hosts: HostCheck = HostCheck(hostName: "localhost"),
        newAlarm: [String: SettingValue] = [:], icons: AppIcons = AppIcons(system: { $0 }), kiosk: uid_t? = getuid(),
        logger: Logger
    ) {
        self.kiosk = kiosk
        self.hosts = hosts
        self.icons = icons
        self.pageSettings = Page.settings(newAlarm: newAlarm)
        self.link = DaemonLink(socketPath: socketPath)
        self.hub = EventHub(logger: logger)
        var random = SystemRandomNumberGenerator()
        self.csrf = CSRFGuard(
            secret: NumberText.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }))
        self.logger = logger
    }

    /// Serves on `host`:`port` until the process ends. `onRunning` gets the bound port.
    public func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        hub.follow(socketPath: link.socketPath)
        let responder = router().buildResponder()
        let logger = self.logger
        // Hummingbird's Application would also start a task that refreshes the Date header every
        // second: 60 wake-ups a minute on an idle clock. The server is built here without it.
        let unfinished = self.unfinished
        let hosts = self.hosts
        let (hub, socketPath) = (self.hub, link.socketPath)
        let server = try HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(registry: unfinished)],
                idleTimeout: .seconds(WebServer.idleSeconds))
        ).buildServer(
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, channel in
                let context = WebContext(source: .init(channel: channel, logger: logger))
                var response: WebResponse
                do {
                    // DNS rebinding: only names that cannot be an attacker's (`HostCheck`).
                    guard hosts.allows(request.head.authority) else {
                        logger.notice(
                            "\(context.remoteName): refused Host \(Sanitized.line(request.head.authority ?? "(none)"))")
                        throw HTTPError(
                            .misdirectedRequest, message: "unknown host name; open the clock by its address")
                    }
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPError {
                    response =
                        (try? error.response(from: request, context: context)) ?? WebResponse(status: error.status)
                } catch {
                    response = WebResponse(status: .internalServerError)
                }
                WebServer.secure(&response.headers)
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { [served] channel in
                let bound = channel.localAddress?.port ?? port
                served.address.withLock { $0 = (host, bound) }
                // The daemon learns the port off the event loop (a blocking socket call).
                Threads.start("serving") { hub.serving(port: bound, socketPath: socketPath) }
                onRunning(bound)
            })
        try await server.run()
    }

    /// Headers every answer carries: nothing cached, not framed, no script or style from anywhere
    /// but the page itself.
    static func secure(_ headers: inout HTTPFields) {
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // An answer that set its own (an icon's, sandboxed) keeps it.
        let policy = HTTPField.Name("Content-Security-Policy")!
        if headers[policy] == nil {
            headers[policy] =
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
                + "img-src data: 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        }
    }

    func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.get("/") { [self] request, context in page(request, context) }
        router.get("/api/state") { [self] request, context in try await state(request, context) }
        router.post("/api/command") { [self] request, context in try await command(request, context) }
        router.post("/pair") { [self] request, context in try await pair(request, context) }
        router.get("/events") { [self] request, context in try await events(request, context) }
        router.get("/icon/:name") { [self] request, context in try await icon(request, context) }
        return router
    }

    // MARK: Routes

    func client(_ request: WebRequest, _ context: WebContext) -> WebClient {
        WebClient(token: request.cookies[WebServer.deviceCookie]?.value, isKiosk: context.isKiosk(kiosk))
    }

    func page(_ request: WebRequest, _ context: WebContext) -> WebResponse {
        let access =
            switch client(request, context) {
            case .kiosk: "kiosk"
            case .paired: "paired"
            case .stranger: "stranger"
            }
        // The kiosk's first boot shows where a phone opens the page; no one else is told.
        var settings = pageSettings
        // The clock's own screen, paired or not, has no keyboard: the page brings its own.
        if access == "kiosk" || (access == "paired" && context.isKiosk(kiosk)) { settings += #","screen":true"# }
        if access == "kiosk" {
            settings += #","phones":[\#(phoneAddresses().map { "\"\($0)\"" }.joined(separator: ","))]"#
        }
        let html = Page.html(csrf: csrf.secret, access: access, settings: settings)
        return WebResponse(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Where a phone on the home network opens the page now (none while it is served on loopback).
    func phoneAddresses() -> [String] {
        guard let (host, port) = served.address.withLock({ $0 }) else { return [] }
        return PhoneAddresses.current(listening: host, port: port)
    }

    /// An installed app's icon (`AppIcons`), for a browser that may see the page. An SVG is served
    /// sandboxed, with no script: opened on its own, it runs nothing in the page's origin. The file
    /// is read off the event loop, as the daemon's answers are (`state`).
    func icon(_ request: WebRequest, _ context: WebContext) async throws -> WebResponse {
        guard client(request, context) != .stranger else { throw Self.notPaired }
        let icons = self.icons
        guard let name = context.parameters.get("name"),
            let found = try await NIOThreadPool.singleton.runIfActive({ icons.icon(named: name) })
        else {
            return WebResponse(status: .notFound)
        }
        var headers: HTTPFields = [.contentType: found.type]
        headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        return WebResponse(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: found.bytes)))
    }

    /// Everything the page shows, in one answer: status, alarms, layers, two months of schedule
    /// (the month view's this month and next), tags and apps.
    func state(_ request: WebRequest, _ context: WebContext) async throws -> WebResponse {
        let client = client(request, context)
        guard client.relay(.status) != nil else { throw Self.notPaired }
        let link = self.link
        let replies = try await NIOThreadPool.singleton.runIfActive {
            let status = link.send(client.relay(.status)!)
            // A phone paired for a child reads that child's own apps; an admin's, the household's.
            let apps: Command = status.status?.person != nil ? .appsStatus(user: nil) : .appsOverview
            let operations: [(String, Command)] = [
                ("alarms", .alarmList), ("rules", .ruleList), ("overrides", .overrideList),
                ("schedule", .next(days: 62)), ("tags", .tagList), ("apps", apps), ("appRequests", .appRequests),
                ("reminders", .reminderList),
            ]
            return [("status", status)]
                + operations.map { name, operation in (name, link.send(client.relay(operation)!)) }
        }
        if let refused = replies.first(where: { $0.0 == "status" && $0.1.error?.message == WebDevice.unknown }) {
            return try json(refused.1, status: .unauthorized, forget: true)
        }
        var fields: [String] = []
        for (name, reply) in replies {
            fields.append("\"\(name)\":" + String(decoding: Framing.encode(reply).dropLast(), as: UTF8.self))
        }
        fields.append("\"daemon\":\(hub.daemonUp)")
        // The kiosk shows where a phone opens the page; after a Wi-Fi join, the new address.
        if client == .kiosk {
            fields.append("\"phones\":[\(phoneAddresses().map { "\"\($0)\"" }.joined(separator: ","))]")
        }
        return WebResponse(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: "{" + fields.joined(separator: ",") + "}")))
    }

    /// One command from the page, relayed with the browser's rights; the daemon's reply as it is.
    func command(_ request: WebRequest, _ context: WebContext) async throws -> WebResponse {
        let client = client(request, context)
        guard client != .stranger else { throw Self.notPaired }
        try checkCSRF(request)
        let body = try await Self.body(request)
        let operation: Command
        do {
            operation = try JSONDecoder().decode(Command.self, from: Data(body.readableBytesView))
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            // A value the protocol's own types refused, in their words (the CLI's): `days "funday": ...`.
            return try json(.failure(.invalid, context.debugDescription), status: .ok)
        } catch {
            return try json(
                .failure(.badRequest, "the page sent a command this server cannot read"), status: .badRequest)
        }
        guard RelayPolicy.allows(operation) else {
            return try json(
                .failure(.forbidden, "'\(operation.name)' is done with the reveille command, not from the page"),
                status: .forbidden)
        }
        guard let relayed = client.relay(operation) else { throw Self.notPaired }
        let link = self.link
        let reply: ReveilleProtocol.Response
        if RelayPolicy.waits(operation) {
            // Held until it happens: never on the pool's few threads, which every page's requests share.
            let claimed = waiting.withLock { busy in
                if busy { return false }
                busy = true
                return true
            }
            guard claimed else {
                let busy = "another screen is waiting for a tag's tap or a sound; try again when it is done"
                return try json(.failure(.refused, busy), status: .ok)
            }
            reply = await withCheckedContinuation { done in
                Threads.start("relay-wait") { done.resume(returning: link.send(relayed)) }
            }
            waiting.withLock { $0 = false }
        } else {
            reply = try await NIOThreadPool.singleton.runIfActive { link.send(relayed) }
        }
        let unpaired = reply.error?.code == .forbidden && reply.error?.message == WebDevice.unknown
        if reply.ok { logger.info("\(context.remoteName) '\(operation.name)': ok") }
        return try json(reply, status: unpaired ? .unauthorized : .ok, forget: unpaired)
    }

    /// Trades a code from `reveille web pair` for the device cookie.
    func pair(_ request: WebRequest, _ context: WebContext) async throws -> WebResponse {
        try checkCSRF(request)
        if let wait = limiter.withLock({ $0.wait(for: context.remoteName, at: Monotonic.seconds()) }) {
            logger.warning("\(context.remoteName): too many pairing attempts")
            return try json(
                .failure(.refused, "too many pairing attempts; try again in \(wait) seconds"), status: .tooManyRequests)
        }
        let body = try await Self.body(request)
        struct Form: Decodable { let code: String;  }
        guard let form = try? JSONDecoder().decode(Form.self, from: Data(body.readableBytesView)), form.code.count < 40
        else {
            return try json(.failure(.badRequest, "send the pairing code, like 1234-5678"), status: .badRequest)
        }
        let link = self.link
        let reply = try await NIOThreadPool.singleton.runIfActive {
            link.send(ReveilleProtocol.Request(.webRedeem(code: form.code)))
        }
        guard reply.ok, let token = reply.web?.token else {
            if reply.error?.code != .unavailable {
                limiter.withLock { $0.wrongCode(from: context.remoteName, at: Monotonic.seconds()) }
            }
            logger.notice("\(context.remoteName): pairing refused: \(reply.error?.message ?? "")")
            return try json(reply, status: .forbidden)
        }
        logger.notice("\(context.remoteName): paired as \(reply.web?.devices.first?.name ?? "?")")
        var shown = reply
        shown.web?.token = nil
        var response = try json(shown, status: .ok)
        response.setCookie(
            Cookie(
                name: WebServer.deviceCookie, value: token, maxAge: 10 * 365 * 86_400, path: "/", httpOnly: true,
                sameSite: .strict))
        return response
    }

    /// Server-sent events: `daemon` (up or down) and `change` (a line of the daemon's watch stream).
    func events(_ request: WebRequest, _ context: WebContext) async throws -> WebResponse {
        let client = client(request, context)
        guard let check = client.relay(.status) else { throw Self.notPaired }
        // A cookie that only looks like a token is not enough: the daemon must know the device.
        // Its answer names the browser's rights, which decide what the stream says about people
        // (none, when the daemon is away: the page reads again when it is back).
        let link = self.link
        let reply = try await NIOThreadPool.singleton.runIfActive { link.send(check) }
        if case .paired = client, reply.error?.code == .forbidden { throw Self.notPaired }
        let hub = self.hub
        let (id, stream) = hub.subscribe(role: reply.status?.role ?? .none, person: reply.status?.person)
        let first = "retry: 2000\nevent: daemon\ndata: \(hub.daemonUp ? "up" : "down")\n\n"
        return WebResponse(
            status: .ok, headers: [.contentType: "text/event-stream"],
            body: .init { writer in
                defer { hub.close(id) }
                try await writer.write(ByteBuffer(string: first))
                for await text in stream {
                    try await writer.write(ByteBuffer(string: text))
                }
                try await writer.finish(nil)
            })
    }

    // MARK: Helpers

    static let notPaired = HTTPError(.forbidden, message: "this browser is not paired; open the page to pair it")

    func checkCSRF(_ request: WebRequest) throws {
        let refusal = csrf.refusal(
            token: request.headers[HTTPField.Name(CSRFGuard.header)!], origin: request.headers[.origin],
            host: request.head.authority)
        if let refusal {
            logger.notice("refused a request without the page's token: \(refusal)")
            throw HTTPError(.forbidden, message: refusal)
        }
    }

    static func body(_ request: WebRequest) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: maxBody)
        } catch {
            throw HTTPError(.contentTooLarge, message: "request too large: at most \(maxBody / 1024) KB")
        }
    }

    func json(_ reply: ReveilleProtocol.Response, status: HTTPResponse.Status, forget: Bool = false) throws
        -> WebResponse
    {
        var response = WebResponse(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: Framing.encode(reply))))
        if forget {
            response.setCookie(
                Cookie(name: WebServer.deviceCookie, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
            )
        }
        return response
    }
}
