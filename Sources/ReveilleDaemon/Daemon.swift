import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import ServiceLifecycle

/// What `reveilled` was asked to run with.
public struct DaemonOptions: Sendable {
    public var paths: Paths
    /// nil: the system's, followed when it changes.
    public var zone: TimeZone?
    public var adminGroup: String
    public var socketGroup: String
    public var clock: any WallClock
    public var graceMinutes: Int
    public var maxRingMinutes: Int

    public init(
        paths: Paths, zone: TimeZone?, adminGroup: String = "reveille-admin", socketGroup: String = "reveille",
        clock: any WallClock = SystemClock(), graceMinutes: Int = 15, maxRingMinutes: Int = 30
    ) {
        self.paths = paths
        self.zone = zone
        self.adminGroup = adminGroup
        self.socketGroup = socketGroup
        self.clock = clock
        self.graceMinutes = graceMinutes
        self.maxRingMinutes = maxRingMinutes
    }
}

/// A start-up failure the operator can fix: the message says what and how.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
}

/// Builds the daemon's parts and runs them until SIGTERM or SIGINT.
public enum Daemon {
    public static func run(_ options: DaemonOptions, logger: Logger) async throws {
        let paths = options.paths
        try prepareDirectories(paths)
        let store: Store
        do {
            store = try Store(path: paths.database)
        } catch {
            throw StartupError(description: "cannot open the state database \(paths.database): \(error)")
        }
        let timer = try WakeTimer(checkInterval: options.clock.checkInterval)
        let environment = RingEnvironment(
            audio: LogOnlyAudioOutput(logger: logger),
            policy: RingPolicy(maxRingSeconds: options.maxRingMinutes * 60), graceSeconds: options.graceMinutes * 60,
            hooksDirectory: paths.configDirectory + "/hooks.d")
        let controller = Controller(
            store: store, clock: options.clock, zone: options.zone, ring: environment, logger: logger,
            wake: { timer.poke() })
        _ = try controller.currentState(today: controller.today())  // purges past overrides
        try controller.resume()
        let access = PeerAccess(adminGroup: options.adminGroup, socketGroup: options.socketGroup)
        let server = ControlServer(path: paths.socket, access: access, controller: controller, logger: logger)
        let scheduler = Scheduler(controller: controller, timer: timer, logger: logger)
        logger.info(
            "reveilled \(reveilleVersion) starting: root \(paths.root), time zone \(controller.zone.identifier)\(options.zone == nil ? " (the system's)" : ""), state \(paths.database)"
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server), .init(service: scheduler)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let refusal as Refusal {
            throw StartupError(description: refusal.message)
        } catch let error as SystemCallError {
            throw StartupError(description: "\(error)" + (error.errno == EACCES ? Daemon.rootHint : ""))
        }
        logger.info("reveilled stopped")
    }

    static let rootHint = "; run as root, or use --root DIR for a development setup"

    /// Creates the state, runtime and log folders (mode 0750, 0755, 0750) if missing.
    static func prepareDirectories(_ paths: Paths) throws {
        for (path, mode) in [
            (paths.stateDirectory, 0o750), (paths.runtimeDirectory, 0o755), (paths.logDirectory, 0o750),
        ] {
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            } catch {
                let reason = (error as NSError).localizedFailureReason ?? "\(error.localizedDescription)"
                throw StartupError(description: "cannot create \(path): \(reason)\(rootHint)")
            }
        }
    }
}
