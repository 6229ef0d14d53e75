import Foundation
import Logging
import ReveilleAudio
import ReveilleConfig
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import ReveilleStore

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
    public var audio: AudioConfiguration
    /// Volume and fade-in of alarms added without them.
    public var defaultVolume: Int
    public var defaultFadeInSeconds: Int
    /// The NFC reader's libnfc connstring (`auto`: libnfc's detection); nil: none.
    public var nfcDevice: String?
    public var nfcIdleCheckSeconds: Double
    public var appWarnMinutes: Int
    public var appKillGraceSeconds: Double

    /// The settings of reveille.toml (already read, with any command-line flags applied).
    public init(paths: Paths, settings: Settings, clock: any WallClock = SystemClock()) {
        self.paths = paths
        self.zone = settings.timeZone.flatMap(TimeZone.init(identifier:))
        self.adminGroup = settings.adminGroup
        self.socketGroup = settings.socketGroup
        self.clock = clock
        self.graceMinutes = settings.missedGraceMinutes
        self.maxRingMinutes = settings.maxRingMinutes
        let audio = settings.audio
        self.audio = AudioConfiguration(
            devices: audio.devices, defaultSound: audio.sound,
            mixer: audio.mixerControl.map { MixerSetting(card: audio.mixerCard, control: $0, level: audio.mixerLevel) },
            retrySeconds: Double(audio.retrySeconds))
        self.defaultVolume = audio.volume
        self.defaultFadeInSeconds = audio.fadeInSeconds
        self.nfcDevice = settings.nfc.device
        self.nfcIdleCheckSeconds = Double(settings.nfc.idleCheckMinutes * 60)
        self.appWarnMinutes = settings.apps.warnMinutes
        self.appKillGraceSeconds = Double(settings.apps.killGraceSeconds)
    }
}

/// A start-up failure the operator can fix: the message says what and how.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
}

/// Builds the daemon's parts and runs them until SIGTERM or SIGINT.
///
/// Plain threads, not Swift concurrency: on Linux, the first task on the global executor (or any
/// work on a global dispatch queue) starts libdispatch's worker-pool monitor, a timer that reads
/// /proc every second for the life of the process. An alarm clock that sits idle all day cannot
/// afford that (see BENCHMARKS.md), so the daemon runs its accept loop, wake timer and hooks on
/// threads of its own, and the main thread waits for a signal with sigwait.
public enum Daemon {
    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it creates after,
    /// so that `waitForSignal` receives them. Call first thing in `main`.
    public static func blockSignals() {
        var set = Daemon.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    public static func run(_ options: DaemonOptions, logger: Logger) throws {
        let paths = options.paths
        try prepareDirectories(paths)
        let store: Store
        do {
            store = try Store(path: paths.database)
        } catch {
            throw StartupError(description: "cannot open the state database \(paths.database): \(error)")
        }
        // Following the system's zone: watch the folder of its link, which timedatectl and
        // raspi-config replace.
        let zoneLink = SystemZone.link(for: paths)
        let timer = try WakeTimer(
            checkInterval: options.clock.checkInterval,
            watchFolder: options.zone == nil ? (zoneLink as NSString).deletingLastPathComponent : nil)
        ALSALog.route(to: logger)
        let audio = ALSAOutput(configuration: options.audio, logger: logger)
        logger.info(
            "sound: devices \(options.audio.candidates.joined(separator: ", ")); sound \(options.audio.defaultSound ?? "the built-in tone")"
        )
        let reader = options.nfcDevice.map {
            NFCReader(
                connstring: $0 == "auto" ? nil : $0, idleCheckSeconds: options.nfcIdleCheckSeconds, logger: logger)
        }
        let environment = RingEnvironment(
            audio: audio, reader: reader ?? NoTagReader(),
            policy: RingPolicy(maxRingSeconds: options.maxRingMinutes * 60),
            graceSeconds: options.graceMinutes * 60, hooksDirectory: paths.configDirectory + "/hooks.d",
            defaultVolume: options.defaultVolume, defaultFadeInSeconds: options.defaultFadeInSeconds)
        let controller = Controller(
            store: store, clock: options.clock, zone: options.zone, zoneLink: zoneLink, ring: environment,
            logger: logger,
            wake: { timer.poke() })
        _ = try controller.currentState(today: controller.today())  // purges past overrides
        if let reader {
            logger.info("NFC reader: \(reader.connstring ?? "libnfc's autodetection"); polled while an alarm rings")
            reader.start(onTag: { controller.tagScanned($0) }, onHealth: { controller.readerHealthChanged($0) })
            // Wait briefly for the first health, so that an alarm due at start sees the reader.
            let deadline = Date().addingTimeInterval(3)
            while reader.health == NFCReader.opening, Date() < deadline { usleep(10_000) }
        } else {
            logger.info("NFC reader: none configured; alarms are dismissed by math")
        }
        try controller.resume()
        let access = PeerAccess(adminGroup: options.adminGroup, socketGroup: options.socketGroup)
        let server = ControlServer(path: paths.socket, access: access, controller: controller, logger: logger)
        let scheduler = Scheduler(controller: controller, timer: timer)
        logger.info(
            "reveilled \(reveilleVersion) starting: root \(paths.root), time zone \(controller.zone.identifier)\(options.zone == nil ? " (the system's)" : ""), state \(paths.database)"
        )
        let listener: Listener
        do {
            listener = try server.start()
        } catch let refusal as Refusal {
            throw StartupError(description: refusal.message)
        } catch let error as SystemCallError {
            throw StartupError(description: "\(error)" + (error.errno == EACCES ? Daemon.rootHint : ""))
        }
        startAppSupervisor(options, store: store, controller: controller, logger: logger)
        scheduler.start()
        ServiceManager.ready("serving \(paths.socket)")
        if let period = ServiceManager.watchdogPeriod() {
            WatchdogPinger(period: period).start(healthy: { controller.isResponsive() }, logger: logger)
        }
        let signal = waitForSignal()
        logger.info("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"); stopping")
        ServiceManager.stopping()
        listener.stop()
        scheduler.stop()
        controller.shutDown()
        reader?.stop()
        logger.info("reveilled stopped")
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        return set
    }

    /// Waits for SIGTERM or SIGINT (SIGHUP is ignored until there is a configuration to reload).
    private static func waitForSignal() -> Int32 {
        var set = signalSet()
        while true {
            var signal: Int32 = 0
            if sigwait(&set, &signal) == 0, signal == SIGTERM || signal == SIGINT { return signal }
        }
    }

    /// Loads apps.toml, follows its changes, and guards launches with fanotify when it can.
    private static func startAppSupervisor(
        _ options: DaemonOptions, store: Store, controller: Controller, logger: Logger
    ) {
        let paths = options.paths
        let clock = options.clock
        let supervisor = AppSupervisor(
            policyPath: paths.configDirectory + "/apps.toml", requireRootOwned: paths.isSystem, store: store,
            clock: clock, zone: { controller.zone },
            logger: logger, warnMinutes: options.appWarnMinutes, graceSeconds: options.appKillGraceSeconds,
            onWarning: { app, user, left in controller.appTimeRunningOut(app: app, user: user, secondsLeft: left) })
        supervisor.reload()
        controller.appSupervisor.withLock { $0 = supervisor }
        if let guardian = supervisor.guardian {
            guardian.start { path, pid in supervisor.decideExec(path: path, pid: pid) }
        } else {
            logger.notice(
                "app guard: \(supervisor.guardProblem ?? "unavailable"); launches are limited only through 'reveille run'"
            )
        }
        supervisor.start()
        if let watcher = PolicyWatcher(folder: paths.configDirectory) {
            watcher.start(name: "apps.toml") { supervisor.reload() }
        } else {
            logger.warning(
                "app policy: cannot watch \(paths.configDirectory); restart reveilled after editing apps.toml")
        }
    }

    static let rootHint = "; run as root, or use --root DIR for a development setup"

    /// Creates the state, runtime and (under --root) log folders (mode 0750, 0755, 0750) if
    /// missing. On the device the log is the journal, and systemd creates the other two.
    static func prepareDirectories(_ paths: Paths) throws {
        var folders = [(paths.stateDirectory, 0o750), (paths.runtimeDirectory, 0o755)]
        if !paths.isSystem { folders += [(paths.logDirectory, 0o750), (paths.configDirectory, 0o755)] }
        for (path, mode) in folders {
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
