import FoundationEssentials
import Glibc
import Logging
import ReveilleAudio
import ReveilleConfig
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import ReveilleStore
import ReveilleSystem
import Synchronization
import CReveilleShims
import ReveilleLaunch

/// What `reveilled` was asked to run with.
public struct DaemonOptions: Sendable {
    public var paths: Paths
    /// The zone's name (`time_zone`, `--time-zone`); nil: the system's, followed when it changes.
    public var zoneName: String?
    public var adminGroup: String
    public var socketGroup: String
    public var clock: any Clocks
    public var graceMinutes: Int
    public var maxRingMinutes: Int
    public var wakeCheckSeconds: Int
    public var earlyDismissMinutes: Int
    public var audio: AudioConfiguration
    /// Volume and fade-in of alarms added without them.
    public var defaultVolume: Int
    public var defaultFadeInSeconds: Int
    /// The NFC reader's libnfc connstring (`auto`: libnfc's detection); nil: none.
    public var nfcDevice: String?
    public var nfcIdleCheckSeconds: Double
    public var appWarnMinutes: Int
    /// A machine of a household that follows its hub's app policy and grants (`[mqtt]`).
    public var followsHub: Bool
    public var appKillGraceSeconds: Double
    /// Buttons and keypads (`[input]`), and the voice (`[voice]`).
    public var input: Settings.Input
    public var voice: Settings.VoiceSettings
    /// `[screen]`: the display's backlight.
    public var screen = Settings.Screen()
    /// `[wifi]`: the set-up network.
    public var wifi = Settings.Wifi()
    /// The command line's flags, which a reload (SIGHUP) applies over the file again.
    public var flags = SettingsFlags()

    /// The settings of reveille.toml (already read, with any command-line flags applied).
    public init(paths: Paths, settings: Settings, clock: any Clocks = SystemClock()) {
        self.paths = paths
        // The kiosk's session is no one's to limit: an app with no users leaves it alone.
        LoginAccounts.kioskUser.withLock { $0 = settings.web.kioskUser ?? (paths.isSystem ? "reveille-kiosk" : nil) }
        LoginAccounts.forget()
        self.zoneName = settings.timeZone
        self.adminGroup = settings.adminGroup
        self.socketGroup = settings.socketGroup
        self.clock = clock
        self.graceMinutes = settings.missedGraceMinutes
        self.maxRingMinutes = settings.maxRingMinutes
        self.wakeCheckSeconds = settings.wakeCheckSeconds
        self.earlyDismissMinutes = settings.earlyDismissMinutes
        let audio = settings.audio
        self.audio = AudioConfiguration(
            devices: audio.devices, defaultSound: audio.sound,
            mixer: audio.mixerControl.map { MixerSetting(card: audio.mixerCard, control: $0, level: audio.mixerLevel) },
            retrySeconds: Double(audio.retrySeconds), backupDevices: audio.backupDevices)
        self.defaultVolume = audio.volume
        self.defaultFadeInSeconds = audio.fadeInSeconds
        self.nfcDevice = settings.nfc.device
        self.nfcIdleCheckSeconds = Double(settings.nfc.idleCheckMinutes * 60)
        self.appWarnMinutes = settings.apps.warnMinutes
        self.followsHub = settings.mqtt?.followsHub ?? false
        self.appKillGraceSeconds = Double(settings.apps.killGraceSeconds)
        self.input = settings.input
        self.voice = settings.voice
        self.screen = settings.screen
        self.wifi = settings.wifi
    }
}

extension DaemonOptions {
    /// What the ring sessions are given: these settings' policy, grace, hooks folder, defaults for
    /// new alarms and voice, with the devices the daemon opened.
    func ringEnvironment(audio: any AudioOutput, reader: any TagReader, voice: any Voice) -> RingEnvironment {
        RingEnvironment(
            audio: audio, reader: reader, policy: ringPolicy, graceSeconds: ringTerms.graceSeconds,
            hooksDirectory: paths.configDirectory + "/hooks.d", defaultVolume: defaultVolume,
            defaultFadeInSeconds: defaultFadeInSeconds, voice: voice, speakReminders: self.voice.speakReminders)
    }
}

/// The settings the command line sets over reveille.toml's.
public struct SettingsFlags: Sendable {
    public var timeZone: String?
    public var adminGroup: String?
    public var socketGroup: String?
    public var missedGraceMinutes: Int?
    public var maxRingMinutes: Int?

    public init() {}

    public func apply(to settings: inout Settings) {
        if let timeZone { settings.timeZone = timeZone }
        if let adminGroup { settings.adminGroup = adminGroup }
        if let socketGroup { settings.socketGroup = socketGroup }
        if let missedGraceMinutes { settings.missedGraceMinutes = missedGraceMinutes }
        if let maxRingMinutes { settings.maxRingMinutes = maxRingMinutes }
    }
}

/// A start-up failure the operator can fix: the message says what and how.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
}

/// Builds the daemon's parts and runs them on one event loop until SIGTERM or SIGINT.
///
/// No Swift concurrency and no dispatch queues: on Linux, the first task on the global executor (or
/// any work on a global dispatch queue) starts libdispatch's worker-pool monitor, a timer that reads
/// /proc every second for the life of the process. An alarm clock that sits idle all day cannot
/// afford that (see BENCHMARKS.md). One thread runs the epoll loop (docs/ARCHITECTURE.md); the
/// blocking C calls (alsa-lib, libnfc, fanotify) have threads of their own that post to it.
public enum Daemon {
    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it creates after,
    /// so that only the loop's signalfd receives them. Call first thing in `main`.
    public static func blockSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // A write to a closed pipe (standard error's reader gone, a client that left) is an
        // error to handle where it happens, never a reason to die.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Why `run` returned.
    public enum Ending: Sendable {
        /// SIGTERM or SIGINT.
        case stopped
        /// SIGHUP with a reveille.toml that loads: start again with it (`reloadInPlace`).
        case reload
        /// The event loop failed (logged): exit non-zero, for systemd to start the daemon again.
        case failed
    }

    @discardableResult
    public static func run(_ options: DaemonOptions, logger: Logger) throws -> Ending {
        let paths = options.paths
        try prepareDirectories(paths)
        let store: Store
        let stateLayout = StateFiles.Layout(database: paths.database)
        let opening: StateFiles.Opening
        do {
            (store, opening) = try StateFiles.open(
                stateLayout, now: Int(options.clock.now().timeIntervalSince1970),
                notes: { logger.critical("\($0)") })
        } catch {
            throw StartupError(description: "cannot open the state database \(paths.database): \(error)")
        }
        let loop = try EventLoop(logger: logger)
        let doorbell = try Doorbell()
        ALSALog.route(to: logger)
        let audio = ALSAOutput(configuration: options.audio, logger: logger) { doorbell.post(.soundSilent($0)) }
        logger.info(
            "sound: devices \(options.audio.candidates.joined(separator: ", ")); sound \(options.audio.defaultSound ?? "the built-in tone")"
        )
        let voice: any Voice =
            options.voice.enabled
            ? EspeakVoice(
                voice: options.voice.voice, wordsPerMinute: options.voice.wordsPerMinute, output: audio, logger: logger)
            : SilentVoice("off ([voice] enabled = false)")
        logger.info("voice: \(voice.statusLine)")
        let reader = options.nfcDevice.map {
            NFCReader(
                connstring: $0 == "auto" ? nil : $0, idleCheckSeconds: options.nfcIdleCheckSeconds, logger: logger)
        }
        if let reader {
            logger.info("NFC reader: \(reader.connstring ?? "libnfc's autodetection"); polled while an alarm rings")
            reader.start(
                onTag: { uid, fresh in doorbell.post(.tagPlaced(uid: uid, fresh: fresh)) },
                onLifted: { doorbell.post(.tagLifted) },
                onHealth: { doorbell.post(.readerHealth($0)) })
            // Wait briefly for the first health, so that an alarm due at start sees the reader.
            reader.waitForHealth(within: 3)
        } else {
            logger.info("NFC reader: none configured; alarms are dismissed by math")
        }
        let zoneSource = options.zoneName.map(ZoneSource.named) ?? .system(link: SystemZone.link(for: paths))
        let environment = options.ringEnvironment(audio: audio, reader: reader ?? NoTagReader(), voice: voice)
        // What the core's decisions reach: built first, so that nothing is wired later.
        let feed = WatchFeed()
        let watches = FolderWatches(loop: loop, logger: logger)
        // An unplugged reader's node goes (a USB serial adapter's, a pseudo-terminal's link): the
        // reader looks at once, so the machine hears of it when it happened, not at the next ring.
        if let reader, let node = NFCReader.devicePath(reader.connstring), let slash = node.lastIndex(of: "/") {
            let folder = slash == node.startIndex ? "/" : String(node[..<slash])
            do {
                try watches.watch(folder: folder, names: [String(node[node.index(after: slash)...])]) {
                    reader.checkNow()
                }
            } catch {
                logger.warning("NFC reader: cannot watch \(folder) for \(node) coming and going: \(error)")
            }
        }
        let wake = try LoopTimer(.realtime, logger: logger)
        let retry = try LoopTimer(.monotonic, logger: logger)
        let outlets = LoopOutlets(
            wake: wake, retry: retry, clock: options.clock, feed: feed, doorbell: doorbell, watches: watches,
            logger: logger)
        let controller = try Controller(
            store: store, clock: options.clock, zone: zoneSource, calendarCache: paths.stateDirectory + "/calendars",
            calendarFetchFolder: paths.calendarCache, calendarFetchRequest: paths.fetchRequest, ring: environment,
            offLoop: OffLoop(doorbell: doorbell),
            outlets: outlets, logger: logger)
        let notes = DaemonNotes()
        if case .restored(let problem, let backupAt, let kept) = opening {
            let since = controller.now()
            notes.stateRestored =
                "restored at start from the backup of \(StateFiles.stamp(backupAt)): the database was \(problem) (kept as \(kept); since \(since.date) \(since.time.hoursAndMinutes)); check 'reveille alarm list'"
        }
        let access = PeerAccess(adminGroup: options.adminGroup, socketGroup: options.socketGroup)
        logger.info(
            "reveilled \(reveilleVersion) starting: root \(paths.root), time zone \(controller.zone.identifier)\(options.zoneName == nil ? " (the system's)" : "") from \(controller.zone.origin), state \(paths.database)"
        )
        let listener: Listener
        do {
            listener = try Listener(path: paths.socket, group: access.socket.id)
        } catch let refusal as Refusal {
            throw StartupError(description: refusal.message)
        } catch let error as SystemCallError {
            throw StartupError(description: "\(error)" + (error.errno == EACCES ? Daemon.rootHint : ""))
        }
        logger.info("listening on \(paths.socket)")
        // Anyone's own apps: a failure here costs the children's side, never the clock.
        var appsListener: Listener?
        do {
            appsListener = try Listener(path: paths.appsSocket, group: nil, mode: 0o666)
        } catch {
            logger.error(
                "apps socket: \(error); users outside group '\(options.socketGroup)' cannot see their own apps")
        }
        let supervisor = startAppSupervisor(
            options, store: store, zone: controller.sharedZone, holidays: controller.sharedHolidays, doorbell: doorbell,
            logger: logger)
        let follower = try AppFollower(
            supervisor: supervisor, loop: loop, feed: feed, offLoop: OffLoop(doorbell: doorbell), logger: logger)
        follower.watchListedFiles()
        let bedside = try startBedsideControls(options, loop: loop, controller: controller, feed: feed, logger: logger)
        let screen = ScreenBacklight(
            paths: paths, settings: options.screen, controller: controller, feed: feed, notes: notes, logger: logger)
        let requests = Requests(
            controller: controller, store: store, ring: environment, outlets: outlets, apps: supervisor,
            bedside: bedside, notes: notes, paths: paths, screen: screen, logger: logger)
        let setupNetwork = try SetupNetworkKeeper(
            paths: paths, settings: options.wifi, notes: notes, web: requests.handlers.web, wifi: requests.handlers.wifi,
            controller: controller, loop: loop, feed: feed, logger: logger)
        let server = try ControlServer(
            listener: listener, appsListener: appsListener, access: access, requests: requests, feed: feed, loop: loop,
            doorbell: doorbell, clock: options.clock, logger: logger)
        let reload = SettingsReload(options: options, controller: controller, notes: notes, loop: loop, logger: logger)
        var timers = try wireTimers(
            loop: loop, controller: controller, wake: wake, retry: retry, clock: options.clock, supervisor: supervisor,
            logger: logger)
        // The state's care: checkpoint, marker and a daily backup, every 6 hours (4 wake-ups a day).
        let stateCare = try LoopTimer(.monotonic, logger: logger)
        stateCare.arm(after: StateFiles.maintenanceSeconds, interval: StateFiles.maintenanceSeconds)
        // A care that failed (a full disk) is tried again soon, then less often, not in 6 hours.
        var careFailures = 0
        try loop.watch(stateCare.fd) { _ in
            _ = stateCare.acknowledge()
            let failed = !maintainState(store, stateLayout, controller: controller, logger: logger, failures: careFailures)
            let wasFailing = careFailures > 0
            careFailures = failed ? careFailures + 1 : 0
            if failed || wasFailing {
                let next = StateFiles.nextCare(afterFailures: careFailures)
                stateCare.arm(after: next, interval: StateFiles.maintenanceSeconds)
            }
        }
        timers.append(stateCare)
        watchZoneFolders(watches, controller: controller, logger: logger)
        // The machine's network, on the device only: under --root the clock is not the machine.
        let network =
            paths.isSystem
            ? NetworkWatch(loop: loop, logger: logger) { info in
                notes.network = info
                feed.publish(.network(info))
            } : nil
        notes.network = network?.info
        let settingsFolder = paths.configDirectory
        do {
            try watches.watch(folder: settingsFolder, names: ["apps.toml"]) { follower.policyChanged(force: false) }
        } catch {
            logger.warning(
                "app policy: cannot watch \(settingsFolder): \(error); restart reveilled after editing apps.toml")
        }
        try loop.watch(doorbell.fd) { _ in
            for event in doorbell.take() {
                switch event {
                case .tagPlaced(let uid, let fresh): requests.handlers.tags.tagPlaced(uid, fresh: fresh)
                case .tagLifted: controller.tagLifted()
                case .readerHealth(let health): controller.readerHealthChanged(health)
                case .soundSilent(let silent): controller.handle(.soundSilent(silent))
                case .reply(let id, let response): server.answerParked(id, response)
                case .wifiJoined(let id, let response, let network, let address):
                    server.answerParked(id, response)
                    setupNetwork.joined(network: network, address: address, response)
                case .setupNetworkOpened(let name, let outcome): setupNetwork.opened(name: name, outcome)
                case .appNotice(let notice, let chimeSecondsLeft):
                    feed.publish(.appNotice(notice))
                    if let left = chimeSecondsLeft {
                        controller.handle(.appTimeRunningOut(app: notice.app, user: notice.user, secondsLeft: left))
                    }
                case .appFollowed(let pid, let pidfd): follower.follow(pid: pid, pidfd: pidfd)
                case .chimeChecked(let key, let skip, let detail):
                    controller.handle(.chimeChecked(key: key, skip: skip, detail: detail))
                case .calendarsRead(let entries): controller.calendarsRead(entries)
                case .calendarChecked(let id, let addition):
                    requests.handlers.calendars.calendarChecked(connection: id, addition)
                case .calendarFolderChanged(let folder): controller.calendarFolderChanged(folder)
                case .appPolicyRead(let read, let number): follower.policyRead(read, number: number)
                }
            }
        }
        var ending = Ending.stopped
        let signalfd = try Descriptor.open("signalfd", "SIGTERM, SIGINT, SIGHUP") { RV_signalfd_termination() }
        let signals = signalfd.raw  // open while the loop holds this handler
        try loop.watch(signals) { _ in
            while true {
                let signal = RV_signalfd_read(signals)
                guard signal > 0 else { return }
                if signal == SIGHUP {
                    // A broken file never stops the clock; one that weakens a committed ring waits.
                    reload.signalled()
                    continue
                }
                logger.info("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"); stopping")
                loop.stop()
            }
        }
        controller.start()
        ServiceManager.ready("serving \(paths.socket)")
        // A reveille.toml that waits for a committed ring applies once the ring is over, however it
        // ended (a dismissal is no tick).
        loop.run(afterEvents: reload.afterTick)
        if reload.requested { ending = .reload }
        if loop.failure != nil { ending = .failed }
        // A reload is no stop: STOPPING=1 would have systemd wait for the process to end, and kill
        // it when the same pid started again instead (seen in the booted appliance).
        if ending == .reload { ServiceManager.reloading() } else { ServiceManager.stopping() }
        server.stop()
        controller.shutDown()
        maintainState(store, stateLayout, controller: controller, logger: logger)
        reader?.stop()
        supervisor.guardian?.close()
        supervisor.flush()
        loop.unwatch(signals)
        withExtendedLifetime((timers, watches, follower, bedside, requests, signalfd, network)) {}
        logger.info(
            ending == .reload
                ? "reveilled stopped, to start again"
                : ending == .failed ? "reveilled stopped on a failure" : "reveilled stopped")
        return ending
    }

    /// Checkpoints the state, writes its marker, backs it up once a day (`StateFiles`); a failure
    /// (a full disk) is logged and shows in `status` through the store's problem.
    /// The state's care; false when the checkpoint or the backup failed (said, with when it is tried again).
    @discardableResult
    static func maintainState(
        _ store: Store, _ layout: StateFiles.Layout, controller: Controller, logger: Logger, failures: Int = 0
    ) -> Bool {
        var ok = true
        do {
            try StateFiles.maintain(store, layout, now: controller.nowSeconds())
        } catch {
            ok = false
            let next = Int(StateFiles.nextCare(afterFailures: failures + 1))
            logger.error(
                "state: checkpoint or backup failed: \(error); trying again in \(DurationText.format(seconds: next))")
        }
        // Requests for more time are for their day: a day's go once it is over.
        do {
            try store.forgetAppRequests(before: controller.now().date)
        } catch {
            logger.error("state: cannot forget past requests for more time: \(error)")
        }
        return ok
    }

    /// Executes this same program with the same arguments (same pid, so systemd follows it): the
    /// daemon starts again with the settings file as it is now. Every descriptor is closed on the
    /// way; a ring in progress resumes from the state. Returns only if exec fails.
    public static func reloadInPlace(logger: Logger) {
        ServiceManager.reloading()
        RV_close_from_on_exec(3)
        let arguments = CommandLine.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        logger.critical("cannot start again in place: execv: \(String(cString: strerror(errno)))")
    }

    /// The wake timer (a realtime timerfd the machine arms through `LoopOutlets`), its retry, the
    /// test clock's check, and systemd's watchdog, all on the loop.
    private static func wireTimers(
        loop: EventLoop, controller: Controller, wake: LoopTimer, retry: LoopTimer, clock: any Clocks,
        supervisor: AppSupervisor, logger: Logger
    ) throws -> [LoopTimer] {
        try loop.watch(wake.fd) { _ in
            controller.tick(clockWasSet: !wake.acknowledge())
        }
        try loop.watch(retry.fd) { _ in
            _ = retry.acknowledge()
            controller.tick()
        }
        var timers = [wake, retry]
        if let interval = clock.checkInterval {
            // A test clock moves by a file the tests rewrite: look as often as it asks.
            let check = try LoopTimer(.monotonic, logger: logger)
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            check.arm(after: seconds, interval: seconds)
            try loop.watch(check.fd) { _ in
                _ = check.acknowledge()
                controller.tick()
            }
            timers.append(check)
        }
        if let period = ServiceManager.watchdogPeriod() {
            let interval = period / 2
            logger.info(
                "systemd watchdog: \(NumberText.fixed(period, 0)) s; pinging every \(NumberText.fixed(interval, 0)) s"
            )
            let watchdog = try LoopTimer(.monotonic, logger: logger)
            watchdog.arm(after: interval, interval: interval)
            try loop.watch(watchdog.fd) { _ in
                _ = watchdog.acknowledge()
                // A guard stuck on one exec holds every exec: no ping (AppFollower asks for the restart).
                if supervisor.guardStalledSeconds() != nil { return }
                ServiceManager.watchdogPing()
            }
            timers.append(watchdog)
        }
        return timers
    }

    /// inotify on the folders the zone's rules come from (see `ZoneSource.folders`), on the loop.
    private static func watchZoneFolders(_ watches: FolderWatches, controller: Controller, logger: Logger) {
        var zoneFolders: Set<String> = []
        // Called again after each change: a new zone may live in another folder.
        func watchZoneFolders() {
            for folder in controller.zoneSource.folders(for: controller.zone) where !zoneFolders.contains(folder) {
                do {
                    // The link's own folder (/etc, written hourly by fake-hwclock, by DHCP, by package
                    // scripts) only for the link's names; the zone file's folder for any change (a
                    // tzdata update rewrites the files there).
                    let names = controller.zoneSource.linkNames(in: folder)
                    try watches.watch(folder: folder, names: names) {
                        controller.zoneFolderChanged()
                        watchZoneFolders()
                    }
                    zoneFolders.insert(folder)
                } catch {
                    logger.warning(
                        "time zone: cannot watch \(folder): \(error); restart reveilled after a tzdata update")
                }
            }
        }
        watchZoneFolders()
    }

    /// The buttons and keypads, told of every session change.
    private static func startBedsideControls(
        _ options: DaemonOptions, loop: EventLoop, controller: Controller, feed: WatchFeed, logger: Logger
    ) throws -> BedsideControls {
        let input = options.input
        let bedside = try BedsideControls(
            configuration: BedsideControls.Configuration(
                devices: input.devices,
                discoveryFolder: options.paths.isSystem ? "/dev/input" : options.paths.root + "/dev/input",
                root: options.paths.root,
                keyMap: input.keyMap, longPressSeconds: Double(input.longPressMilliseconds) / 1000,
                answerTimeoutSeconds: Double(input.answerTimeoutSeconds), sayTimeWhenIdle: options.voice.sayTimeWhenIdle
            ),
            loop: loop, controller: controller, feed: feed, logger: logger)
        bedside.start()
        return bedside
    }

    /// Loads apps.toml and guards launches with fanotify when it can.
    private static func startAppSupervisor(
        _ options: DaemonOptions, store: Store, zone: SharedZone, holidays: SharedHolidays, doorbell: Doorbell,
        logger: Logger
    ) -> AppSupervisor {
        let paths = options.paths
        let clock = options.clock
        let supervisor = AppSupervisor(
            policyPath: paths.appPolicy, requireRootOwned: paths.isSystem, followsHub: options.followsHub, store: store,
            clock: clock, zone: { zone.current }, holidays: { holidays.current },
            logger: logger, warnMinutes: options.appWarnMinutes, graceSeconds: options.appKillGraceSeconds,
            onFollow: { pid, pidfd in doorbell.post(.appFollowed(pid: pid, pidfd: pidfd)) },
            onWarning: { notice, left in doorbell.post(.appNotice(notice, chimeSecondsLeft: left)) })
        supervisor.reload()
        supervisor.loadToday()
        if let guardian = supervisor.guardian {
            guardian.start { supervisor.decideExec($0) }
        } else {
            logger.notice(
                "app guard: \(supervisor.guardProblem ?? "unavailable"); launches are limited only through 'reveille run'"
            )
        }
        return supervisor
    }

    static let rootHint = "; run as root, or use --root DIR for a development setup"

    /// Creates the state, runtime and (under --root) log folders (mode 0750, 0755, 0750) if
    /// missing. On the device the log is the journal, and systemd creates the other two.
    static func prepareDirectories(_ paths: Paths) throws {
        var folders = [(paths.stateDirectory, 0o750), (paths.runtimeDirectory, 0o755)]
        // Under --root the developer is also the fetcher: the web calendars' cache is made here (on the
        // device, by tmpfiles.d, for the reveille-fetch user).
        if !paths.isSystem {
            folders += [(paths.logDirectory, 0o750), (paths.configDirectory, 0o755), (paths.calendarCache, 0o755)]
        }
        for (path, mode) in folders {
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            } catch {
                let reason = FileProblem.reason(error)
                throw StartupError(description: "cannot create \(path): \(reason)\(rootHint)")
            }
        }
    }
}
