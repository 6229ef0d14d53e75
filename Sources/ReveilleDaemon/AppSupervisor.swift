import CReveilleShims
import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore
import ReveilleSystem
import Synchronization

/// Keeps the app policy (docs/guide/apps.md, "App time windows and daily limits") and carries out what
/// `AppLimits` (ReveilleCore) decides: answers the guard's exec questions from memory, follows the
/// apps it let start by pidfd, saves their time, warns, and signals them.
///
/// An app is known by its content (docs/guide/apps.md, "What counts as the app"): when the policy loads, each
/// listed executable is hashed (SHA-256 and size) into an `ExecCatalog`, with the dynamic loaders;
/// the guard then answers every exec on the watched file systems by the file's content, whatever
/// its path or name, hashing only a file whose size is in the catalog, once per version
/// (`FileStamp`).
///
/// Shared by two threads: the app guard's (exec decisions, which never wait for the loop or the
/// disk) and the event loop's (pidfds, the review timer, requests); the little state they share
/// sits behind one `Mutex`, the guard's own memory behind another. The loop side is `AppFollower`.
final class AppSupervisor: Sendable {
    struct State {
        var limits: AppLimits
        /// How many listed executables were read and hashed, of how many listed.
        var known = (executables: 0, listed: 0)
        /// The listed executables, resolved: one replaced (a package upgrade) is read again.
        var listedFiles: Set<String> = []
        /// Followed processes' pidfds, by pid.
        var pidfds: [Int32: Descriptor] = [:]
        /// Where the policy in force came from.
        var source = PolicySource.none
        /// The text of the apps.toml in force, when it came from the file.
        var loadedText: String?
        /// Why apps.toml was refused, and since when (seconds since the epoch); nil once it loads.
        var rejection: (reason: String, since: Int)?
        /// The policy in force as kept in the state (`AppSupervisor+InForce`): the file as last
        /// merged, the revision, and hand edits not applied.
        var base = AppPolicy()
        var revision = 0
        var conflicts: [String] = []
        /// apps.toml as last read without error.
        var fileApps: AppPolicy?
        /// Whether the state's record was read (at the first load).
        var recordRead = false
        /// The household's hub whose policy is in force here, and since when (Unix seconds): then
        /// apps.toml is not merged, and `reveille apps` and the page cannot change the policy.
        var hub: (name: String, since: Int)?
    }

    /// What the guard's thread works from: the catalog, the verdicts of the file versions seen
    /// (bounded), and the exec sequence that tells a loader run directly.
    struct GuardMemory {
        var catalog = ExecCatalog()
        /// Which policy load the catalog is of: a verdict reached with an older one is not kept.
        var generation = 0
        var verdicts: [FileStamp: ExecVerdict] = [:]
        var sequence = ExecSequence()
        /// The last app decision: the kernel asks twice about one exec of a script it guards (as
        /// an exec, and as an open); the second answer repeats the first without a second log line.
        var lastDenied: (pid: Int32, stamp: FileStamp, at: Double)?
        static let verdictLimit = 8192
    }

    enum PolicySource: Equatable {
        /// Nothing loaded yet: no app is limited.
        case none
        case file
        /// apps.toml did not load at start: the policy kept in the state, as saved then.
        case lastGood(savedAt: Int)
        /// Changed with `reveille apps` or on the page.
        case edited
        /// The household's hub's (`reveille-mqtt` passed it on).
        case hub
    }

    let policyPath: String
    /// The device's own policy (not under --root): it must belong to root.
    let requireRootOwned: Bool
    let store: Store
    let clock: any Clocks
    let zone: @Sendable () -> Zone
    /// The days the holiday calendars mark (the controller's, shared): days off for the limits.
    let holidays: @Sendable () -> Set<CivilDate>
    let logger: Logger
    /// A process started as an app: the loop follows its pidfd.
    let onFollow: @Sendable (_ pid: Int32, _ pidfd: Descriptor) -> Void
    /// An app's time runs out soon, or it was refused: the user's notifier hears it (through the
    /// loop). `chimeSecondsLeft`: at the bedside too, and the hooks, with the seconds left to the
    /// second (nil: the notifier alone).
    let onWarning: @Sendable (_ notice: AppNotice, _ chimeSecondsLeft: Int?) -> Void
    let state: Mutex<State>
    private let memory = Mutex(GuardMemory())
    private let ownPid = getpid()
    let guardian: FanotifyGuard?
    let guardProblem: String?
    /// Whether this machine is a household's member that follows its hub (`[mqtt]`).
    let followsHub: Bool

    init(
        policyPath: String, requireRootOwned: Bool, followsHub: Bool = false, store: Store, clock: any Clocks,
        zone: @escaping @Sendable () -> Zone, holidays: @escaping @Sendable () -> Set<CivilDate> = { [] },
        logger: Logger, warnMinutes: Int = 5, graceSeconds: Double = 10,
        onFollow: @escaping @Sendable (Int32, Descriptor) -> Void = { _, _ in },
        onWarning: @escaping @Sendable (AppNotice, Int?) -> Void = { _, _ in }
    ) {
        self.policyPath = policyPath
        self.requireRootOwned = requireRootOwned
        self.followsHub = followsHub
        self.store = store
        self.clock = clock
        self.zone = zone
        self.holidays = holidays
        self.logger = logger
        self.onFollow = onFollow
        self.onWarning = onWarning
        // With a test clock that jumps, look as often as it is checked; otherwise every 15 s while an app runs.
        let review = clock.checkInterval.map(\.inSeconds).map { max($0 * 2, 0.2) } ?? 15
        state = Mutex(
            State(
                limits: AppLimits(warnSeconds: warnMinutes * 60, killGraceSeconds: graceSeconds, reviewSeconds: review))
        )
        do {
            guardian = try FanotifyGuard(logger: logger)
            guardProblem = nil
        } catch {
            guardian = nil
            guardProblem = error.description
        }
    }

    /// Which way launches are limited, for `status` and `doctor`.
    var mode: AppGuardState {
        let (count, known) = state.withLock { ($0.limits.policy.apps.count, $0.known) }
        if let guardian {
            let watched = guardian.watchedFilesystems.map(\.mountPoint)
            let detail =
                count == 0
                ? "no app listed, no exec waits for the guard"
                : "\(counted(count, "app")), \(known.executables) of \(counted(known.listed, "executable")) known by content; execs watched on \(watched.count) file systems"
            return AppGuardState(
                mode: .fanotify, detail: detail, rejected: rejection, watched: watched,
                stalledSeconds: guardStalledSeconds())
        }
        return AppGuardState(mode: .gateOnly, detail: guardProblem ?? "?", rejected: rejection)
    }

    /// How long the guard's thread has been answering one batch of execs, when it is past its
    /// bound (5 s); nil while it keeps up.
    func guardStalledSeconds() -> Double? {
        guard let guardian else { return nil }
        let answering = guardian.answeringFor()
        return answering >= guardian.stallSeconds ? answering : nil
    }

    /// Today's usage and grants as stored, read once at start on the loop. Later days begin empty
    /// in memory at midnight (nothing can be stored for a day that has not begun), so that an exec
    /// never waits for the disk.
    func loadToday() {
        let today = self.today()
        do {
            let usage = try store.appUsage(on: today)
            let grants = try store.appGrants(on: today)
            let openings = try store.appOpenings(on: today)
            carryOut(state.withLock { $0.limits.beginDay(today, usage: usage, grants: grants, openings: openings) })
        } catch {
            logger.error("app usage: cannot read today's from the state: \(error); counting from 0")
        }
    }

    // MARK: The policy

    func enforce(_ policy: AppPolicy, from source: PolicySource) {
        let read = catalogue(policy)
        state.withLock {
            $0.limits.policyLoaded(policy)
            $0.known = read.known
            $0.listedFiles = read.files
            $0.source = source
        }
        memory.withLock { memory in
            memory.catalog = read.catalog
            memory.generation += 1
            memory.verdicts = read.seeds
        }
        watchFilesystems()
        if let guardian {
            for (path, why) in guardian.watchOpens(of: read.scripts) {
                logger.warning(
                    "app guard: cannot watch opens of the script \(path): \(why); 'sh \(path)' is not limited")
            }
        }
    }

    /// What reading the listed executables gives.
    struct Catalogue {
        var catalog = ExecCatalog()
        /// The verdicts of the files read, so that their first exec is answered from memory.
        var seeds: [FileStamp: ExecVerdict] = [:]
        /// Listed scripts, whose opens are watched.
        var scripts: Set<String> = []
        /// The listed executables read, resolved: their folders are watched for one replaced.
        var files: Set<String> = []
        var known = (executables: 0, listed: 0)
    }

    /// How many unreadable listed executables are named one by one in the log.
    static let unreadableSaid = 5

    /// The listed executables and the dynamic loaders, read and hashed.
    private func catalogue(_ policy: AppPolicy) -> Catalogue {
        guard !policy.apps.isEmpty else { return Catalogue() }
        let started = clock.elapsed()
        var catalog = ExecCatalog()
        var read: [(FileStamp, ContentID, ExecutableKind)] = []
        var scripts: Set<String> = []
        var files: Set<String> = []
        var listed = 0
        // Said one line a path for the first few; a policy of thousands of missing paths is one
        // more line, not thousands.
        var unreadable = 0
        func hash(_ path: String) -> (FileStamp, ContentID, ExecutableKind)? {
            let file: Descriptor
            do {
                file = try ExecutableFile.open(path)
            } catch {
                unreadable += 1
                if unreadable <= Self.unreadableSaid {
                    logger.warning(
                        "app guard: cannot read \(path): \(error.reason); it is recognized once it can be read and apps.toml is saved again"
                    )
                }
                return nil
            }
            let hashed = file.withRaw { fd -> (FileStamp, ContentID, ExecutableKind)? in
                guard let stamp = ExecutableFile.stamp(fd), let content = ExecutableFile.content(fd, size: stamp.size)
                else { return nil }
                return (stamp, content, ExecutableFile.kind(fd))
            }
            guard let hashed else {
                logger.warning("app guard: cannot hash \(path) (not a regular file, or it changed while read)")
                return nil
            }
            read.append(hashed)
            return hashed
        }
        for app in policy.apps {
            for path in app.paths {
                listed += 1
                let resolved = AppSupervisor.resolved(path)
                guard let (stamp, content, kind) = hash(resolved) else { continue }
                catalog.add(content, app: app.name, file: stamp.key)
                files.insert(resolved)
                if kind == .script { scripts.insert(resolved) }
            }
        }
        if unreadable > Self.unreadableSaid {
            logger.warning(
                "app guard: \(unreadable - Self.unreadableSaid) more listed executables cannot be read ('reveille apps status' lists the apps)"
            )
        }
        let known = read.count
        for loader in DynamicLoaders.paths() {
            if let (_, content, _) = hash(loader) { catalog.addLoader(content) }
        }
        var seeds: [FileStamp: ExecVerdict] = [:]
        for (stamp, content, kind) in read { seeds[stamp] = catalog.verdict(for: content, file: stamp.key, kind: kind) }
        logger.info(
            "app guard: \(known) of \(listed) listed executables and \(catalog.loaders.count) dynamic loaders hashed in \(NumberText.fixed((clock.elapsed() - started) * 1000, 0)) ms"
        )
        return Catalogue(
            catalog: catalog, seeds: seeds, scripts: scripts, files: files, known: (known, listed))
    }

    /// Watches execs on every file system programs can run from, while the policy lists apps
    /// (none otherwise: then no exec waits for the guard at all). Called again when mounts change.
    func watchFilesystems() {
        guard let guardian else { return }
        let apps = state.withLock { $0.limits.policy.apps.count }
        let chosen = apps > 0 ? Mounts.executable(Mounts.read()) : []
        let before = Set(guardian.watchedFilesystems.map(\.device))
        for (mountPoint, why) in guardian.watchExecs(on: chosen) {
            logger.warning(
                "app guard: cannot watch execs on \(mountPoint): \(why); a copy of an app there is not limited")
        }
        let now = guardian.watchedFilesystems
        if Set(now.map(\.device)) != before, !now.isEmpty {
            logger.notice("app guard: execs watched on \(now.map(\.mountPoint).joined(separator: " "))")
        }
    }

    /// A refused apps.toml, for `status`, `apps status` and `doctor`: the reason with file:line,
    /// since when, and what is enforced meanwhile. nil when the file loaded.
    var rejection: String? {
        let (rejection, source, count) = state.withLock { ($0.rejection, $0.source, $0.limits.policy.apps.count) }
        guard let rejection else { return nil }
        let meanwhile =
            switch source {
            case .none: "no app is limited until it loads"
            case .file, .edited, .hub: "the policy in force before is kept (\(counted(count, "app")))"
            case .lastGood(let savedAt):
                "the last good policy is enforced (\(counted(count, "app")), as loaded \(Self.stamp(savedAt, zone: zone())))"
            }
        return "\(rejection.reason) (since \(Self.stamp(rejection.since, zone: zone()))); \(meanwhile)"
    }

    /// `2026-11-23 21:04` in `zone`.
    static func stamp(_ instant: Int, zone: Zone) -> String {
        let local = ZoneResolver(zone: zone).local(at: instant)
        return "\(local.date) \(local.time)"
    }


    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    // MARK: Decisions

    /// The guard asks: may `event.pid` exec (or open) the file open as `event.fd`? The file is known
    /// by its content; anything not in the catalog is allowed, except the dynamic loader run
    /// directly by a user the policy limits. On the guard's thread: memory, and a hash only for a
    /// file version not seen before whose size is in the catalog.
    func decideExec(_ event: FanotifyGuard.Event) -> Bool {
        guard event.pid != ownPid, let stamp = ExecutableFile.stamp(event.fd) else { return true }
        let verdict = verdict(of: stamp, fd: event.fd)
        if event.exec, memory.withLock({ $0.sequence.exec(pid: event.pid, verdict, file: stamp) }) {
            let user = ProcessOwner.user(of: event.pid)
            let person = ProcessOwner.isPerson(name: user)
            if state.withLock({ $0.limits.policy.limits(user: user, isPerson: person) }) {
                let begunUnwatched = ExecSequence.mayHaveBegunUnwatched(
                    processStarted: ProcessStart.bootSeconds(of: event.pid), watchGrewAt: guardian?.watchGrewAt,
                    now: Monotonic.bootSeconds())
                guard begunUnwatched else {
                    logger.notice(
                        "app guard: the dynamic loader run directly (\(event.path)) denied to \(user) (pid \(event.pid)): what it would load cannot be checked"
                    )
                    return false
                }
                logger.info(
                    "app guard: the dynamic loader (\(event.path)) allowed to \(user) (pid \(event.pid)): the second half of an exec begun before its file system was watched"
                )
            }
        }
        guard let name = verdict.app else { return true }
        // An interpreter reading a script it was allowed to run, or an app reading itself.
        if !event.exec, state.withLock({ $0.pidfds[event.pid] != nil }) { return true }
        let now = clock.elapsed()
        let repeated = memory.withLock { memory in
            guard let last = memory.lastDenied else { return false }
            return last.pid == event.pid && last.stamp == stamp && now - last.at < 1
        }
        if repeated { return false }
        let user = ProcessOwner.user(of: event.pid)
        let decision = decide(name, user: user)
        if !decision.allowed { memory.withLock { $0.lastDenied = (event.pid, stamp, now) } }
        let how = event.exec ? "" : ", read by its interpreter"
        if decision.allowed {
            logger.info("app \(name) started by \(user) (pid \(event.pid)\(how)): \(decision.reason)")
            // Time is counted only for those the app's limits fall on.
            if appliesTo(name, user: user) { follow(pid: event.pid, app: name, user: user) }
        } else {
            logger.notice("app \(name) denied to \(user) (pid \(event.pid), \(event.path)\(how)): \(decision.reason)")
            onWarning(AppNotice(kind: .denied, user: user, app: name, reason: decision.reason), nil)
        }
        return decision.allowed
    }

    /// The verdict on one version of a file: from memory when seen before, else read (its kind,
    /// and its hash when its size is in the catalog) and kept.
    private func verdict(of stamp: FileStamp, fd: Int32) -> ExecVerdict {
        let (known, catalog, generation) = memory.withLock { ($0.verdicts[stamp], $0.catalog, $0.generation) }
        if let known { return known }
        let kind = ExecutableFile.kind(fd)
        let content = catalog.mayMatch(size: stamp.size) ? ExecutableFile.content(fd, size: stamp.size) : nil
        let verdict = catalog.verdict(for: content, file: stamp.key, kind: kind)
        memory.withLock { memory in
            guard memory.generation == generation else { return }
            if memory.verdicts.count >= GuardMemory.verdictLimit { memory.verdicts.removeAll() }
            memory.verdicts[stamp] = verdict
        }
        return verdict
    }

    func decide(_ name: String, user: String) -> AppDecision {
        let person = ProcessOwner.isPerson(name: user)
        let instant = clock.instant()
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: instant.second).date
        let holidays = holidays()
        let (decision, actions) = state.withLock { state -> (AppDecision, [AppLimits.Action]) in
            state.limits.holidays = holidays
            let actions = state.limits.turn(to: today)
            let decision = state.limits.decide(name, user: user, isPerson: person, at: instant, resolver: &resolver)
            return (decision, actions)
        }
        carryOut(actions)
        return decision
    }

    func statusInfo(_ name: String, user: String) -> AppStatusInfo? {
        let decision = decide(name, user: user)
        return state.withLock { state in
            guard let rule = state.limits.policy.app(named: name) else { return nil }
            let grant = state.limits.grantMinutes(name, user: user)
            let limit = state.limits.limitMinutes(rule, user: user)
            let key = AppUsageKey(app: name, user: user)
            var info = AppStatusInfo(
                name: name, user: user, allowed: decision.allowed, reason: decision.reason,
                usedMinutes: state.limits.usedSeconds(key) / 60,
                limitMinutes: rule.applies(to: user, isPerson: ProcessOwner.isPerson(name: user)) ? limit : nil,
                grantMinutes: grant, summary: rule.summary)
            info.outsideWindow = decision.outsideWindow ? true : nil
            let here = state.limits.usage[key] ?? 0
            let elsewhere = state.limits.usedElsewhere(key)
            info.usedSecondsHere = here > 0 ? here : nil
            info.usedSecondsElsewhere = elsewhere > 0 ? elsewhere : nil
            return info
        }
    }

    /// Whether app `name`'s limits fall on `user`.
    func appliesTo(_ name: String, user: String) -> Bool {
        let person = ProcessOwner.isPerson(name: user)
        return state.withLock { $0.limits.policy.app(named: name)?.applies(to: user, isPerson: person) ?? false }
    }

    var appNames: [String] { state.withLock { $0.limits.policy.apps.map(\.name) } }

    /// Each app with the users its limits fall on: those its `users` names, or else the people of
    /// this machine (login accounts, read once), sorted.
    func limitedUsers() -> [(app: String, users: [String])] {
        let apps = state.withLock { $0.limits.policy.apps.map { ($0.name, $0.users) } }
        var people: [String]?
        return apps.map { name, named in
            if named.isEmpty, people == nil { people = LoginAccounts.people() }
            return (name, named.isEmpty ? people ?? [] : named.sorted())
        }
    }

    var listedFiles: Set<String> { state.withLock { $0.listedFiles } }

    /// Each app of the policy in force with its paths.
    var listedPaths: [(name: String, paths: [String])] {
        state.withLock { $0.limits.policy.apps.map { ($0.name, $0.paths) } }
    }

    func executable(of name: String) -> String? {
        state.withLock { $0.limits.policy.app(named: name)?.paths.first }
    }

    /// More minutes today for `name`, for `user` alone or (nil) every user, and with `openNow`
    /// the app open from now for those minutes, outside its hours; the grant's new total, and until
    /// when it is open.
    func grant(_ minutes: Int, to name: String, user: String? = nil, openNow: Bool = false) throws -> (
        minutes: Int, openUntil: Int?
    ) {
        let today = self.today()
        let openUntil = openNow ? AppLimits.opening(at: Int(clock.now().timeIntervalSince1970), minutes: minutes) : nil
        let total = try store.addAppGrant(minutes, app: name, user: user, on: today, openUntil: openUntil)
        state.withLock { $0.limits.granted(name, user: user, totalMinutes: total.minutes, openUntil: total.openUntil) }
        let opened = total.openUntil.map {
            ", open now until \(ZoneResolver(zone: zone()).local(at: $0).time.hoursAndMinutes)"
        }
        logger.notice(
            "app \(name): \(minutes) more minutes granted for today\(user.map { " to \($0)" } ?? "") (\(total.minutes) in all)\(opened ?? "")"
        )
        return total
    }

    /// What another machine of the household used on `day`: counted against the limits here from
    /// now. True when a count rose.
    func heard(from machine: String, on day: CivilDate, usage: [AppUsageKey: Int]) -> Bool {
        let rose = state.withLock { $0.limits.heard(from: machine, on: day, usage: usage) }
        if rose {
            logger.info(
                "household: \(machine) used \(usage.map { "\($0.key.app) of \($0.key.user) \($0.value / 60) min" }.sorted().joined(separator: ", ")) on \(day)"
            )
        }
        return rose
    }

    func today() -> CivilDate {
        ZoneResolver(zone: zone()).local(at: Int(clock.now().timeIntervalSince1970)).date
    }

    // MARK: Following running apps

    /// Follows `pid` as `app` run by `user` (`reveille run` and the guard both come here): a pidfd,
    /// handed to the loop.
    func follow(pid: Int32, app: String, user: String) {
        // Already followed: an app that execs itself again, or a script its interpreter opens.
        guard state.withLock({ $0.pidfds[pid] == nil }) else { return }
        let pidfd: Descriptor
        do {
            pidfd = try Descriptor.open("pidfd_open", "pid \(pid)") { RV_pidfd_open(pid) }
        } catch {
            logger.warning("app \(app): cannot follow pid \(pid): \(error.reason)")
            return
        }
        let now = clock.elapsed()
        state.withLock { state in
            state.limits.started(pid: pid, app: app, user: user, now: now)
            state.pidfds[pid] = pidfd
        }
        onFollow(pid, pidfd)
    }

    /// The app and user a followed process is counted for.
    func followed(pid: Int32) -> AppUsageKey? {
        state.withLock { $0.limits.running.first { $0.pid == pid }?.key }
    }

    /// On the loop: a followed process ended. Returns when to review next.
    func exited(pid: Int32) -> Double? {
        let now = clock.elapsed()
        let actions = state.withLock { state -> [AppLimits.Action] in
            state.pidfds[pid] = nil  // closed once the loop has let go of it too
            return state.limits.exited(pid: pid, now: now)
        }
        carryOut(actions)
        return review()
    }

    /// On the loop: counts time, saves it, warns and ends what must stop. Returns when to look
    /// again (seconds from now; nil: nothing runs).
    @discardableResult
    func review() -> Double? {
        let instant = clock.instant()
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: instant.second).date
        let holidays = holidays()
        let actions = state.withLock { state -> [AppLimits.Action] in
            state.limits.holidays = holidays
            return state.limits.turn(to: today) + state.limits.review(at: instant, resolver: &resolver)
        }
        return carryOut(actions)
    }

    /// At shutdown: what was counted is saved.
    func flush() {
        carryOut(state.withLock { $0.limits.flush() })
    }

    /// Does what `AppLimits` asked; returns the wake-up it asked for.
    @discardableResult
    private func carryOut(_ actions: [AppLimits.Action]) -> Double? {
        var wake: Double?
        for action in actions {
            switch action {
            case .signal(let pid, let signal):
                guard let pidfd = state.withLock({ $0.pidfds[pid] }) else { continue }
                // pidfd_send_signal, checked: a process that is already gone is fine.
                if pidfd.withRaw({ RV_pidfd_signal($0, signal.rawValue) }) != 0, errno != ESRCH {
                    logger.error(
                        "app (pid \(pid)): pidfd_send_signal(\(signal.rawValue)) failed: \(String(cString: strerror(errno)))"
                    )
                }
            case .warn(let app, let user, let left, let reason, let chime):
                onWarning(
                    AppNotice(
                        kind: .timeLeft, user: user, app: app, minutesLeft: max(1, (left + 59) / 60), reason: reason),
                    chime ? left : nil)
            case .save(let totals, let date):
                for (key, seconds) in totals {
                    do {
                        try store.setAppUsage(seconds, for: key, on: date)
                    } catch {
                        logger.error("app usage: cannot save: \(error)")
                    }
                }
            case .log(let level, let text): logger.log(level: Logger.Level(level), "\(text)")
            case .wake(let after): wake = after
            }
        }
        return wake
    }

}
