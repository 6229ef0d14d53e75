import CReveilleShims
import Foundation
import Glibc
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore
import Synchronization

/// Keeps the app policy (README, "App time windows and daily limits") and enforces it: answers the guard's exec questions, follows
/// the apps it let start (pidfd), counts their time per local day, warns before their time runs
/// out, then ends them with SIGTERM and, after a grace, SIGKILL.
final class AppSupervisor: @unchecked Sendable {
    struct Running {
        var key: AppUsageKey
        var pid: Int32
        var pidfd: Int32
        var terminatedAt: Double?
    }

    struct State {
        var policy = AppPolicy()
        var usageDate: CivilDate?
        var usage: [AppUsageKey: Int] = [:]
        var grants: [String: Int] = [:]
        var running: [Running] = []
        var lastAccrual: Double?
        /// Usage counted in memory since it was last saved.
        var unsaved: Set<AppUsageKey> = []
        var warned: Set<AppUsageKey> = []
        /// Marked executables, resolved, to their app.
        var executables: [String: String] = [:]
        var stopping = false
    }

    let policyPath: String
    /// The device's own policy (not under --root): it must belong to root.
    let requireRootOwned: Bool
    let store: Store
    let clock: any WallClock
    let zone: @Sendable () -> TimeZone
    let logger: Logger
    let warnSeconds: Int
    let graceSeconds: Double
    let tick: Double
    let onWarning: @Sendable (String, String, Int) -> Void
    private let state = Mutex(State())
    private let doorbell: Int32
    private(set) var guardian: FanotifyGuard?
    let guardProblem: String?

    init(
        policyPath: String, requireRootOwned: Bool, store: Store, clock: any WallClock,
        zone: @escaping @Sendable () -> TimeZone,
        logger: Logger,
        warnMinutes: Int = 5, graceSeconds: Double = 10, onWarning: @escaping @Sendable (String, String, Int) -> Void
    ) {
        self.policyPath = policyPath
        self.requireRootOwned = requireRootOwned
        self.store = store
        self.clock = clock
        self.zone = zone
        self.logger = logger
        self.warnSeconds = warnMinutes * 60
        self.graceSeconds = graceSeconds
        self.tick =
            clock.checkInterval.map(\.inSeconds)
            .map { max($0 * 2, 0.2) } ?? 15
        self.onWarning = onWarning
        self.doorbell = RV_eventfd()
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
        let count = state.withLock { $0.policy.apps.count }
        if let guardian {
            return AppGuardState(
                mode: .fanotify, detail: "\(guardian.markedPaths.count) executables of \(count) apps guarded")
        }
        return AppGuardState(mode: .gateOnly, detail: guardProblem ?? "?")
    }

    // MARK: The policy

    /// Loads the policy; on error keeps the one in force (none at start) and logs file:line.
    func reload() {
        do {
            try checkOwnership()
            let policy = try AppPolicyFile.load(path: policyPath)
            let executables = Dictionary(
                policy.apps.flatMap { app in app.paths.map { (AppSupervisor.resolved($0), app.name) } },
                uniquingKeysWith: { first, _ in first })
            state.withLock {
                $0.policy = policy
                $0.executables = executables
            }
            if let guardian {
                for (path, why) in guardian.mark(Array(executables.keys)) {
                    logger.warning("app guard: cannot watch \(path): \(why); launching it is not limited")
                }
            }
            logger.notice("app policy: \(policy.apps.count) apps from \(policyPath)")
        } catch let error as ConfigError {
            logger.error("app policy: \(error); the policy in force is kept")
        } catch {
            logger.error("app policy: \(error); the policy in force is kept")
        }
    }

    /// On the device (or run as root), a policy file anyone but root may change would let them
    /// lift their limits: refused. Under --root for development, the developer owns it.
    private func checkOwnership() throws {
        guard requireRootOwned || geteuid() == 0 else { return }
        var info = stat()
        guard stat(policyPath, &info) == 0 else { return }
        if info.st_uid != 0 || info.st_mode & 0o022 != 0 {
            throw ConfigError(
                path: policyPath, line: nil,
                message:
                    "refused: it must belong to root and be writable by root alone (sudo chown root: \(policyPath); sudo chmod 644 \(policyPath))"
            )
        }
    }

    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    // MARK: Decisions

    /// The guard asks: may `pid` exec `path`? Unknown paths are always allowed.
    func decideExec(path: String, pid: Int32) -> Bool {
        guard let name = state.withLock({ $0.executables[path] }) else { return true }
        let user = ProcessOwner.user(of: pid)
        let decision = decide(name, user: user)
        if decision.allowed {
            logger.info("app \(name) started by \(user) (pid \(pid)): \(decision.reason)")
            follow(pid: pid, app: name, user: user, decision: decision)
        } else {
            logger.notice("app \(name) denied to \(user) (pid \(pid), \(path)): \(decision.reason)")
        }
        return decision.allowed
    }

    func decide(_ name: String, user: String) -> AppDecision {
        let now = Int(clock.now().timeIntervalSince1970)
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: now).date
        return state.withLock { state in
            refreshDay(&state, today)
            guard let rule = state.policy.app(named: name) else {
                return AppDecision(allowed: true, reason: "not in the policy", nextChange: nil, secondsLeft: nil)
            }
            accrue(&state, now: Double(now))
            return AppEvaluator.decide(
                rule, user: user, at: now, resolver: &resolver,
                usedSeconds: state.usage[AppUsageKey(app: name, user: user)] ?? 0, grantMinutes: state.grants[name] ?? 0
            )
        }
    }

    func statusInfo(_ name: String, user: String) -> AppStatusInfo? {
        let decision = decide(name, user: user)
        return state.withLock { state in
            guard let rule = state.policy.app(named: name) else { return nil }
            let today = state.usageDate ?? CivilDate(dayNumber: 0)
            let grant = state.grants[name] ?? 0
            let limit = rule.limits[today.weekday].map { $0 + grant }
            return AppStatusInfo(
                name: name, user: user, allowed: decision.allowed, reason: decision.reason,
                usedMinutes: (state.usage[AppUsageKey(app: name, user: user)] ?? 0) / 60,
                limitMinutes: rule.users.isEmpty || rule.users.contains(user) ? limit : nil, grantMinutes: grant)
        }
    }

    var appNames: [String] { state.withLock { $0.policy.apps.map(\.name) } }

    func executable(of name: String) -> String? { state.withLock { $0.policy.app(named: name)?.paths.first } }

    func grant(_ minutes: Int, to name: String) throws -> Int {
        let today = ZoneResolver(zone: zone()).local(at: Int(clock.now().timeIntervalSince1970)).date
        let total = try store.addAppGrant(minutes, app: name, on: today)
        state.withLock { state in
            refreshDay(&state, today)
            state.grants[name] = total
            state.warned.removeAll()
        }
        logger.notice("app \(name): \(minutes) more minutes granted for today (\(total) in all)")
        return total
    }

    // MARK: Following running apps

    /// Follows `pid` as `app` run by `user` (a pidfd; `reveille run` and the guard both come here).
    func follow(pid: Int32, app: String, user: String, decision: AppDecision) {
        let pidfd = RV_pidfd_open(pid)
        guard pidfd >= 0 else {
            logger.warning("app \(app): cannot follow pid \(pid): \(String(cString: strerror(errno)))")
            return
        }
        state.withLock { state in
            accrue(&state, now: clock.now().timeIntervalSince1970)
            state.running.append(Running(key: AppUsageKey(app: app, user: user), pid: pid, pidfd: pidfd))
        }
        var one: UInt64 = 1
        _ = write(doorbell, &one, 8)
    }

    /// The thread that waits on the followed processes, counts their time and ends them.
    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "apps"
        thread.start()
    }

    /// Ends the thread (at shutdown): the followed processes are left running.
    func stop() {
        state.withLock { $0.stopping = true }
        var one: UInt64 = 1
        _ = write(doorbell, &one, 8)
    }

    private func loop() {
        while !state.withLock({ $0.stopping }) {
            let watched = state.withLock { $0.running.map(\.pidfd) }
            var descriptors = [pollfd(fd: doorbell, events: Int16(POLLIN), revents: 0)]
            descriptors += watched.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // Asleep while nothing runs: no wake-ups for an idle clock.
            let timeout: Int32 = watched.isEmpty ? -1 : Int32(tick * 1000)
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if descriptors[0].revents != 0 {
                var value: UInt64 = 0
                _ = read(doorbell, &value, 8)
            }
            let exited = Set(descriptors.dropFirst().filter { $0.revents != 0 }.map(\.fd))
            review(exited: exited)
        }
    }

    /// Counts time, drops exited processes, warns and ends what must stop.
    private func review(exited: Set<Int32>) {
        let now = clock.now().timeIntervalSince1970
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: Int(now)).date
        var warnings: [(String, String, Int)] = []
        state.withLock { state in
            accrue(&state, now: now)
            save(&state)
            refreshDay(&state, today)
            for process in state.running where exited.contains(process.pidfd) {
                close(process.pidfd)
                logger.info(
                    "app \(process.key.app) (pid \(process.pid)) ended; \((state.usage[process.key] ?? 0) / 60) min today"
                )
            }
            state.running.removeAll { exited.contains($0.pidfd) }
            for key in Set(state.running.map(\.key)) {
                guard let rule = state.policy.app(named: key.app) else { continue }
                let decision = AppEvaluator.decide(
                    rule, user: key.user, at: Int(now), resolver: &resolver, usedSeconds: state.usage[key] ?? 0,
                    grantMinutes: state.grants[key.app] ?? 0)
                if decision.allowed, let left = decision.secondsLeft, left <= warnSeconds, !state.warned.contains(key) {
                    state.warned.insert(key)
                    warnings.append((key.app, key.user, left))
                }
                guard !decision.allowed else { continue }
                for index in state.running.indices where state.running[index].key == key {
                    if let since = state.running[index].terminatedAt {
                        if now - since >= graceSeconds {
                            logger.warning("app \(key.app) (pid \(state.running[index].pid)) ignored SIGTERM; SIGKILL")
                            signal(state.running[index], SIGKILL)
                        }
                    } else {
                        logger.notice(
                            "app \(key.app) (pid \(state.running[index].pid)) of \(key.user) must stop: \(decision.reason); SIGTERM"
                        )
                        signal(state.running[index], SIGTERM)
                        state.running[index].terminatedAt = now
                    }
                }
            }
        }
        for (app, user, left) in warnings {
            logger.notice("app \(app) of \(user): \(max(1, (left + 59) / 60)) min left, then it is ended")
            onWarning(app, user, left)
        }
    }

    /// pidfd_send_signal, checked: a process that is already gone is fine, anything else is logged.
    private func signal(_ process: Running, _ number: Int32) {
        guard RV_pidfd_signal(process.pidfd, number) != 0 else { return }
        guard errno != ESRCH else { return }
        logger.error(
            "app \(process.key.app) (pid \(process.pid)): pidfd_send_signal(\(number)) failed: \(String(cString: strerror(errno)))"
        )
    }

    /// Adds the time since the last count to every app running now (once per app and user, however
    /// many processes), in memory: exec decisions call it, and must not wait for the disk.
    private func accrue(_ state: inout State, now: Double) {
        defer { state.lastAccrual = now }
        guard let last = state.lastAccrual, now > last, state.usageDate != nil else { return }
        let elapsed = Int((now - last).rounded())
        guard elapsed > 0 else {
            state.lastAccrual = last
            return
        }
        for key in Set(state.running.map(\.key)) {
            state.usage[key, default: 0] += elapsed
            state.unsaved.insert(key)
        }
    }

    /// Writes the usage counted since the last save (on the apps thread's ticks and at day's end).
    private func save(_ state: inout State) {
        guard let date = state.usageDate else { return }
        for key in state.unsaved {
            do {
                try store.setAppUsage(state.usage[key] ?? 0, for: key, on: date)
            } catch {
                logger.error("app usage: cannot save: \(error)")
            }
        }
        state.unsaved.removeAll()
    }

    /// A new local day: usage and grants start afresh (read from the store, so a restart keeps them).
    private func refreshDay(_ state: inout State, _ today: CivilDate) {
        guard state.usageDate != today else { return }
        save(&state)
        state.usageDate = today
        state.usage = (try? store.appUsage(on: today)) ?? [:]
        state.grants = (try? store.appGrants(on: today)) ?? [:]
        state.warned.removeAll()
    }
}
