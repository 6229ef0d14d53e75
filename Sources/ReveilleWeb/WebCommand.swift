import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleSystem
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol

/// `reveille-web`: the clock's screen as a web page, for the kiosk and the household's phones.
public struct WebCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reveille-web",
        abstract: "Serves the clock's screen: a page for the touchscreen and the household's phones.",
        discussion: """
            An unprivileged process that talks to reveilled only over its control socket, as a \
            member of the admin group. It listens where [web] in reveille.toml says (127.0.0.1:8080 \
            by default: the kiosk only). This machine's browsers get the household's rights; others \
            must be paired with a code from 'sudo reveille web pair' (--admin to manage).
            """)

    @Option(name: .long, help: ArgumentHelp("Keep everything under this folder (development).", valueName: "dir"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this address instead of [web] address.", valueName: "ip"))
    var address: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Listen on this port instead of [web] port (0: any free one).", valueName: "port"))
    var port: Int?

    public init() {}

    public mutating func run() async throws {
        try await serve(executorNote: nil)
    }

    /// What `run` does, by a name of its own: called from a protocol existential, `run()` picks
    /// ParsableCommand's synchronous default (which prints the help).
    public func serve(executorNote: String?) async throws {
        let paths = Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
        let settings: Settings
        do {
            settings = try Settings.load(path: paths.settingsFile)
        } catch {
            Stdio.err(Data("reveille-web: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if let port, !(0...65535).contains(port) {
            throw ValidationError("--port \(port): give 1-65535, or 0 for any free port")
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "reveille-web")
        logger.logLevel = .info
        if let executorNote { logger.warning("\(executorNote)") }
        let host = address ?? settings.web.address
        var name = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&name, name.count) == 0 ? String(cString: name) : "localhost"
        // The kiosk is one user's browser: the package's reveille-kiosk, or [web] kiosk_user; under
        // --root (development), whoever runs the page's server.
        let kioskUser = settings.web.kioskUser ?? (paths.isSystem ? "reveille-kiosk" : nil)
        var kiosk: uid_t? = getuid()
        if let kioskUser {
            kiosk = getpwnam(kioskUser)?.pointee.pw_uid
            if let kiosk {
                logger.info("the kiosk: browsers of \(kioskUser) (uid \(kiosk)) on this machine; any other browser pairs")
            } else {
                logger.warning(
                    "there is no user \(kioskUser): no browser has the kiosk's rights, every one pairs; set [web] kiosk_user to the account whose session shows the page"
                )
            }
        }
        let server = WebServer(
            socketPath: paths.socket, hosts: HostCheck(hostName: hostName, extra: settings.web.hosts),
            newAlarm: ["volume": .int(settings.audio.volume), "fadeInSeconds": .int(settings.audio.fadeInSeconds)],
            icons: AppIcons(system: paths.system), kiosk: kiosk, logger: logger)
        let log = logger
        try await server.run(host: host, port: port ?? settings.web.port) { bound in
            let shown = host.contains(":") ? "[\(host)]" : host
            log.notice("serving the clock's page at http://\(shown):\(bound)/ (reveilled at \(paths.socket))")
        }
    }
}
