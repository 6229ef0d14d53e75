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

/// Keeps the app policy (README, "App time windows and daily limits") and carries out what
/// `AppLimits` (ReveilleCore) decides: answers the guard's exec questions from memory, follows the
/// apps it let start by pidfd, saves their time, warns, and signals them.
///
/// Shared by two threads: the app guard's (exec decisions, which never wait for the loop or the
/// disk) and the event loop's (pidfds, the review timer, requests); the little state they share
/// sits behind one `Mutex`. The loop side is `AppFollower`.
final class AppSupervisor: Sendable {
    struct State {
        var limits: AppLimits
        /// Marked executables, resolved, to their app.
        var executables: [String: String] = [:]
        /// Followed processes' pidfds, by pid.
        var pidfds: [Int32: Int32] = [:]
        /// Where the policy in force came from.
        var source = PolicySource.none
        /// Why apps.toml was refused, and since when (seconds since the epoch); nil once it loads.
        var rejection: (reason: String, since: Int)?
    }

    enum PolicySource: Equatable {
        /// Nothing loaded yet: no app is limited.
        case none
        case file
        /// apps.toml did not load at start: the copy kept in the state when it last loaded.
        case lastGood(savedAt: Int)
    }

    let policyPath: String
    /// The device's own policy (not under --root): it must belong to root.
    let requireRootOwned: Bool
    let store: Store
    let clock: any WallClock
    let zone: @Sendable () -> TimeZone
    let logger: Logger
    /// A process started as an app: the loop follows its pidfd.
    let onFollow: @Sendable (_ pid: Int32, _ pidfd: Int32) -> Void
    /// An app's time runs out soon: the chime and the hooks (through the loop).
    let onWarning: @Sendable (_ app: String, _ user: String, _ secondsLeft: Int) -> Void
    private let state: Mutex<State>
    let guardian: FanotifyGuard?
    let guardProblem: String?

    init(
        policyPath: String, requireRootOwned: Bool, store: Store, clock: any WallClock,
        zone: @escaping @Sendable () -> TimeZone, logger: Logger, warnMinutes: Int = 5, graceSeconds: Double = 10,
        onFollow: @escaping @Sendable (Int32, Int32) -> Void = { _, _ in },
        onWarning: @escaping @Sendable (String, String, Int) -> Void = { _, _, _ in }
    ) {
        self.policyPath = policyPath
        self.requireRootOwned = requireRootOwned
        self.store = store
        self.clock = clock
        self.zone = zone
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
        let count = state.withLock { $0.limits.policy.apps.count }
        if let guardian {
            return AppGuardState(
                mode: .fanotify, detail: "\(guardian.markedPaths.count) executables of \(count) apps guarded",
                rejected: rejection)
        }
        return AppGuardState(mode: .gateOnly, detail: guardProblem ?? "?", rejected: rejection)
    }

    /// Today's usage and grants as stored, read once at start on the loop. Later days begin empty
    /// in memory at midnight (nothing can be stored for a day that has not begun), so that an exec
    /// never waits for the disk.
    func loadToday() {
        let today = self.today()
        do {
            let usage = try store.appUsage(on: today)
            let grants = try store.appGrants(on: today)
            carryOut(state.withLock { $0.limits.beginDay(today, usage: usage, grants: grants) })
        } catch {
            logger.error("app usage: cannot read today's from the state: \(error); counting from 0")
        }
    }

    // MARK: The policy

    /// Loads the policy; on error keeps the one in force (none at start) and logs file:line.
    /// Returns why the file was refused, or nil when it was loaded.
    @discardableResult
    func reload() -> String? {
        let now = Int(clock.now().timeIntervalSince1970)
        do {
            try checkOwnership()
            let (policy, text) = try AppPolicyFile.read(path: policyPath)
            enforce(policy, from: .file)
            state.withLock { $0.rejection = nil }
            logger.notice("app policy: \(policy.apps.count) apps from \(policyPath)")
            do {
                try store.saveGoodAppPolicy(text, at: now)
            } catch {
                logger.error("app policy: cannot keep a copy in the state: \(error)")
            }
            return nil
        } catch {
            let (source, count) = state.withLock { state in
                state.rejection = (reason: "\(error)", since: state.rejection?.since ?? now)
                return (state.source, state.limits.policy.apps.count)
            }
            switch source {
            case .none:
                enforceLastGood(after: error)
            case .file, .lastGood:
                logger.error("app policy: \(error); the policy in force is kept (\(count) apps)")
            }
            return "\(error)"
        }
    }

    /// apps.toml did not load at start: enforce the copy kept when it last loaded, never nothing.
    private func enforceLastGood(after error: some Error) {
        do {
            guard let good = try store.goodAppPolicy() else {
                logger.error(
                    "app policy: \(error); no policy ever loaded here, so no app is limited until apps.toml loads")
                return
            }
            let document = try TOMLDocument(path: policyPath + " (the last good copy)", text: good.text)
            let policy = try AppPolicyFile.parse(document)
            enforce(policy, from: .lastGood(savedAt: good.savedAt))
            logger.error(
                "app policy: \(error); enforcing the last good policy instead (\(policy.apps.count) apps, as loaded \(Self.stamp(good.savedAt, zone: zone())))"
            )
        } catch let stored {
            logger.error("app policy: \(error); and the last good copy in the state cannot be read: \(stored)")
        }
    }

    private func enforce(_ policy: AppPolicy, from source: PolicySource) {
        let executables = Dictionary(
            policy.apps.flatMap { app in app.paths.map { (AppSupervisor.resolved($0), app.name) } },
            uniquingKeysWith: { first, _ in first })
        state.withLock {
            $0.limits.policyLoaded(policy)
            $0.executables = executables
            $0.source = source
        }
        if let guardian {
            for (path, why) in guardian.mark(Array(executables.keys)) {
                logger.warning("app guard: cannot watch \(path): \(why); launching it is not limited")
            }
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
            case .file: "the policy loaded before is enforced (\(count) apps)"
            case .lastGood(let savedAt):
                "the last good policy is enforced (\(count) apps, as loaded \(Self.stamp(savedAt, zone: zone())))"
            }
        return "\(rejection.reason) (since \(Self.stamp(rejection.since, zone: zone()))); \(meanwhile)"
    }

    /// `2026-11-23 21:04` in `zone`.
    static func stamp(_ instant: Int, zone: TimeZone) -> String {
        let local = ZoneResolver(zone: zone).local(at: instant)
        return "\(local.date) \(local.time)"
    }

    /// On the device (or run as root), a policy file anyone but root may change would let them
    /// lift their limits: refused. Under --root for development, the developer owns it.
    private func checkOwnership() throws {
        guard requireRootOwned || geteuid() == 0 else { return }
        try AppPolicyFile.checkOwnership(path: policyPath)
    }

    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    // MARK: Decisions

    /// The guard asks: may `pid` exec `path`? Unknown paths are always allowed. On the guard's
    /// thread: memory only.
    func decideExec(path: String, pid: Int32) -> Bool {
        guard let name = state.withLock({ $0.executables[path] }) else { return true }
        let user = ProcessOwner.user(of: pid)
        let decision = decide(name, user: user)
        if decision.allowed {
            logger.info("app \(name) started by \(user) (pid \(pid)): \(decision.reason)")
            follow(pid: pid, app: name, user: user)
        } else {
            logger.notice("app \(name) denied to \(user) (pid \(pid), \(path)): \(decision.reason)")
        }
        return decision.allowed
    }

    func decide(_ name: String, user: String) -> AppDecision {
        let wall = clock.now().timeIntervalSince1970
        let now = clock.elapsed()
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: Int(wall)).date
        let (decision, actions) = state.withLock { state -> (AppDecision, [AppLimits.Action]) in
            var actions: [AppLimits.Action] = []
            if state.limits.day != today {
                actions = state.limits.beginDay(today, usage: [:], grants: [:])
            }
            let decision = state.limits.decide(name, user: user, at: Int(wall), now: now, resolver: &resolver)
            return (decision, actions)
        }
        carryOut(actions)
        return decision
    }

    func statusInfo(_ name: String, user: String) -> AppStatusInfo? {
        let decision = decide(name, user: user)
        return state.withLock { state in
            guard let rule = state.limits.policy.app(named: name) else { return nil }
            let today = state.limits.day ?? CivilDate(dayNumber: 0)
            let grant = state.limits.grantMinutes(name, user: user)
            let limit = rule.limits[today.weekday].map { $0 + grant }
            return AppStatusInfo(
                name: name, user: user, allowed: decision.allowed, reason: decision.reason,
                usedMinutes: (state.limits.usage[AppUsageKey(app: name, user: user)] ?? 0) / 60,
                limitMinutes: rule.users.isEmpty || rule.users.contains(user) ? limit : nil, grantMinutes: grant)
        }
    }

    var appNames: [String] { state.withLock { $0.limits.policy.apps.map(\.name) } }

    func executable(of name: String) -> String? {
        state.withLock { $0.limits.policy.app(named: name)?.paths.first }
    }

    /// More minutes today for `name`, for `user` alone or (nil) every user; the grant's new total.
    func grant(_ minutes: Int, to name: String, user: String? = nil) throws -> Int {
        let today = self.today()
        let total = try store.addAppGrant(minutes, app: name, user: user, on: today)
        state.withLock { $0.limits.granted(name, user: user, totalMinutes: total) }
        logger.notice(
            "app \(name): \(minutes) more minutes granted for today\(user.map { " to \($0)" } ?? "") (\(total) in all)")
        return total
    }

    private func today() -> CivilDate {
        ZoneResolver(zone: zone()).local(at: Int(clock.now().timeIntervalSince1970)).date
    }

    // MARK: Following running apps

    /// Follows `pid` as `app` run by `user` (`reveille run` and the guard both come here): a pidfd,
    /// handed to the loop.
    func follow(pid: Int32, app: String, user: String) {
        let pidfd = RV_pidfd_open(pid)
        guard pidfd >= 0 else {
            logger.warning("app \(app): cannot follow pid \(pid): \(String(cString: strerror(errno)))")
            return
        }
        let now = clock.elapsed()
        state.withLock { state in
            state.limits.started(pid: pid, app: app, user: user, now: now)
            state.pidfds[pid] = pidfd
        }
        onFollow(pid, pidfd)
    }

    /// On the loop: a followed process ended. Returns when to review next.
    func exited(pid: Int32) -> Double? {
        let now = clock.elapsed()
        let actions = state.withLock { state -> [AppLimits.Action] in
            if let pidfd = state.pidfds.removeValue(forKey: pid) { close(pidfd) }
            return state.limits.exited(pid: pid, now: now)
        }
        carryOut(actions)
        return review()
    }

    /// On the loop: counts time, saves it, warns and ends what must stop. Returns when to look
    /// again (seconds from now; nil: nothing runs).
    @discardableResult
    func review() -> Double? {
        let wall = clock.now().timeIntervalSince1970
        let now = clock.elapsed()
        var resolver = ZoneResolver(zone: zone())
        let today = resolver.local(at: Int(wall)).date
        let actions = state.withLock { state -> [AppLimits.Action] in
            var actions: [AppLimits.Action] = []
            if state.limits.day != today { actions = state.limits.beginDay(today, usage: [:], grants: [:]) }
            return actions + state.limits.review(at: Int(wall), now: now, resolver: &resolver)
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
                if RV_pidfd_signal(pidfd, signal.rawValue) != 0, errno != ESRCH {
                    logger.error(
                        "app (pid \(pid)): pidfd_send_signal(\(signal.rawValue)) failed: \(String(cString: strerror(errno)))"
                    )
                }
            case .warn(let app, let user, let left): onWarning(app, user, left)
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

/// The loop's side of the app guard: each followed process's pidfd on the event loop, and the
/// review timer armed where `AppLimits` asked. Idle (no app running), it arms nothing.
final class AppFollower {
    let supervisor: AppSupervisor
    let loop: EventLoop
    private let timer: LoopTimer

    init(supervisor: AppSupervisor, loop: EventLoop, logger: Logger) throws {
        self.supervisor = supervisor
        self.loop = loop
        timer = try LoopTimer(.monotonic, logger: logger)
        try loop.watch(timer.fd) { [unowned self] _ in
            _ = timer.acknowledge()
            arm(supervisor.review())
        }
    }

    /// A process to follow (posted by the guard's thread or `reveille run`).
    func follow(pid: Int32, pidfd: Int32) {
        do {
            try loop.watch(pidfd) { [unowned self] _ in
                loop.unwatch(pidfd)
                arm(supervisor.exited(pid: pid))
            }
        } catch {
            // Not followed on the loop: the review timer still counts it and ends it when due.
            supervisor.logger.error("app (pid \(pid)): cannot watch its pidfd: \(error)")
        }
        arm(supervisor.review())
    }

    private func arm(_ after: Double?) {
        timer.arm(after: after ?? 0)
    }
}
