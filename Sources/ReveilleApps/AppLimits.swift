import ReveilleCore

/// The app guard's decisions over time, as a pure state machine: the time each listed app runs is
/// counted per app and user per local day; a running app is warned a few minutes before its time
/// runs out (its window closes or its daily limit is reached), sent SIGTERM when it does, and
/// SIGKILL if it is still there after a grace. Events come in with the time; actions come out,
/// ending with when to look again. The daemon's `AppSupervisor` carries them out.
public struct AppLimits: Sendable {
    /// A followed process of a listed app.
    public struct Process: Hashable, Sendable {
        public let key: AppUsageKey
        public let pid: Int32
        /// When it was sent SIGTERM (seconds, the clock of `review`), if it was.
        public fileprivate(set) var terminatedAt: Double?
        public fileprivate(set) var killed = false
    }

    public enum Signal: Int32, Hashable, Sendable {
        case terminate = 15
        case kill = 9
    }

    public enum Action: Hashable, Sendable {
        case signal(pid: Int32, Signal)
        /// The app's time runs out in `secondsLeft` (`reason`: until when, and why): the user's
        /// notifier hears it at each of `noticeSeconds`; the bedside chime and the hooks at
        /// `warnSeconds` (`chime`).
        case warn(app: String, user: String, secondsLeft: Int, reason: String, chime: Bool)
        /// Write these day totals (seconds) for `date`.
        case save([AppUsageKey: Int], on: CivilDate)
        case log(LogLevel, String)
        /// Review again after this many seconds at the latest; nil: nothing runs, nothing to watch.
        case wake(after: Double?)
    }

    /// Chime this long before an app's time runs out.
    public let warnSeconds: Int
    /// Tell the user this long before, each time (15, 5 and 1 minutes, and `warnSeconds`).
    public let noticeSeconds: [Int]
    /// SIGKILL this long after a SIGTERM that was not obeyed.
    public let killGraceSeconds: Double
    /// While an app runs its time is counted and saved at least this often.
    public let reviewSeconds: Double
    public private(set) var policy = AppPolicy()
    /// The local day usage is counted for; nil before the first `beginDay`.
    public private(set) var day: CivilDate?
    /// The days the holiday calendars mark (the alarms' own): days off for the limits that say
    /// `days_off`, whatever the weekday.
    public var holidays: Set<CivilDate> = []
    public private(set) var usage: [AppUsageKey: Int] = [:]
    /// Extra minutes granted today, per app and user (`AppLimits.everyone`: every user).
    public private(set) var grants: [AppUsageKey: Int] = [:]
    /// The user of a grant for every user of the app.
    public static let everyone = "*"
    /// Grants that open the app now, outside its hours (`apps grant --open-now`): until when, as
    /// an instant, per app and user, today.
    public private(set) var openings: [AppUsageKey: Int] = [:]
    public private(set) var running: [Process] = []
    /// Seconds used today on the household's other machines, per machine, as last heard (README,
    /// "One limit across the household's machines"). Each machine's count only rises: merged by
    /// the maximum, a message that comes twice, late or out of order changes nothing.
    public private(set) var elsewhere: [String: [AppUsageKey: Int]] = [:]
    /// At most this many other machines, and this many counts from each, are kept.
    public static let machineLimit = 32
    public static let countLimit = 256
    private var lastCount: Double?
    private var unsaved: Set<AppUsageKey> = []
    /// The last notice given today per app and user (seconds before the end).
    private var warned: [AppUsageKey: Int] = [:]

    public init(warnSeconds: Int = 300, killGraceSeconds: Double = 10, reviewSeconds: Double = 15) {
        self.warnSeconds = warnSeconds
        noticeSeconds = Set([900, 300, 60, warnSeconds]).filter { $0 > 0 }.sorted(by: >)
        self.killGraceSeconds = killGraceSeconds
        self.reviewSeconds = reviewSeconds
    }

    // MARK: Events

    /// A new local day: its usage and grants as stored (so that a restart keeps them). What the
    /// day before counted and did not save yet is saved first.
    public mutating func beginDay(
        _ today: CivilDate, usage: [AppUsageKey: Int], grants: [AppUsageKey: Int], openings: [AppUsageKey: Int] = [:]
    ) -> [Action] {
        let actions = flush()
        day = today
        self.usage = usage
        self.grants = grants
        self.openings = openings
        elsewhere.removeAll()
        warned.removeAll()
        return actions
    }

    /// The wall clock reads `today`: a day other than the one counted begins, empty (its usage
    /// and grants are stored only once it has begun).
    public mutating func turn(to today: CivilDate) -> [Action] {
        day == today ? [] : beginDay(today, usage: [:], grants: [:])
    }

    /// What `machine`, another of the household's, says it used on `day`, in seconds. Only what
    /// rose is taken; another day's counts are not today's. True when a count rose.
    public mutating func heard(from machine: String, on day: CivilDate, usage: [AppUsageKey: Int]) -> Bool {
        guard day == self.day, elsewhere[machine] != nil || elsewhere.count < Self.machineLimit else { return false }
        var counts = elsewhere[machine] ?? [:]
        var rose = false
        for (key, seconds) in usage where seconds > (counts[key] ?? 0) {
            guard counts[key] != nil || counts.count < Self.countLimit else { continue }
            counts[key] = min(seconds, 86_400)
            rose = true
        }
        elsewhere[machine] = counts
        return rose
    }

    /// Another machine's counts as they came (`apps household`), checked: its name of letters,
    /// digits, `-` and `_` (at most 64), at most `countLimit` counts, each of a day's seconds at most.
    public static func checkedCounts(
        from machine: String, _ counts: [(user: String, app: String, seconds: Int)]
    ) throws(InputError) -> [AppUsageKey: Int] {
        try checkedMachine(machine)
        guard counts.count <= countLimit else {
            throw InputError("\(counts.count) counts: at most \(countLimit) at once")
        }
        var checked: [AppUsageKey: Int] = [:]
        for count in counts {
            guard (0...86_400).contains(count.seconds), !count.user.isEmpty, count.user.count <= 64, !count.app.isEmpty,
                count.app.count <= 64
            else {
                throw InputError(
                    "a count of \(count.seconds) s for \(count.app.prefix(64)) of \(count.user.prefix(64)) is not a day's"
                )
            }
            checked[AppUsageKey(app: count.app, user: count.user)] = count.seconds
        }
        return checked
    }

    /// A machine of the household, as it names itself: letters, digits, `-` and `_`, at most 64.
    public static func checkedMachine(_ machine: String) throws(InputError) {
        guard !machine.isEmpty, machine.count <= 64,
            machine.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw InputError("machine \"\(machine.prefix(64))\": give letters, digits, - and _") }
    }

    /// The household hub's grants of a day, checked: at most `countLimit`, each an app and a user
    /// (`*`: everyone) of at most 64 characters with 1 to 1,440 minutes. By key: the minutes in all.
    public static func checkedGrants(
        _ grants: [(app: String, user: String, minutes: Int)]
    ) throws(InputError) -> [AppUsageKey: Int] {
        guard grants.count <= countLimit else {
            throw InputError("\(grants.count) grants: at most \(countLimit) at once")
        }
        var checked: [AppUsageKey: Int] = [:]
        for grant in grants {
            guard (1...1440).contains(grant.minutes), !grant.user.isEmpty, grant.user.count <= 64,
                !grant.app.isEmpty, grant.app.count <= 64
            else {
                throw InputError(
                    "a grant of \(grant.minutes) minutes of \(grant.app.prefix(64)) to \(grant.user.prefix(64)) is not a day's"
                )
            }
            checked[AppUsageKey(app: grant.app, user: grant.user)] = grant.minutes
        }
        return checked
    }

    /// Seconds `key` used today on the household's other machines.
    public func usedElsewhere(_ key: AppUsageKey) -> Int {
        elsewhere.values.reduce(0) { $0 + ($1[key] ?? 0) }
    }

    /// Seconds `key` used today: here, and on the household's other machines. What limits it.
    public func usedSeconds(_ key: AppUsageKey) -> Int {
        (usage[key] ?? 0) + usedElsewhere(key)
    }

    public mutating func policyLoaded(_ policy: AppPolicy) {
        self.policy = policy
    }

    /// `apps grant`: the total granted to `app` today, for `user` (nil: every user); warnings
    /// may come again.
    public mutating func granted(_ app: String, user: String? = nil, totalMinutes: Int, openUntil: Int? = nil) {
        let key = AppUsageKey(app: app, user: user ?? Self.everyone)
        grants[key] = totalMinutes
        if let openUntil { openings[key] = max(openings[key] ?? openUntil, openUntil) }
        warned.removeAll()
    }

    /// An opening granted at `now` for `minutes` (`--open-now`): until then.
    public static func opening(at now: Int, minutes: Int) -> Int { now + minutes * 60 }

    /// Until when `app` is open for `user` today outside its hours: theirs or everyone's.
    public func openUntil(_ app: String, user: String) -> Int? {
        [openings[AppUsageKey(app: app, user: user)], openings[AppUsageKey(app: app, user: Self.everyone)]]
            .compactMap { $0 }.max()
    }

    /// The minutes granted today to `app` for `user`: theirs and everyone's.
    public func grantMinutes(_ app: String, user: String) -> Int {
        (grants[AppUsageKey(app: app, user: user)] ?? 0) + (grants[AppUsageKey(app: app, user: Self.everyone)] ?? 0)
    }

    /// Today's limit of `rule` for `user` with the day's grants, in minutes; nil: none.
    public func limitMinutes(_ rule: AppRule, user: String) -> Int? {
        guard let day else { return nil }
        return rule.limit(on: day, holiday: holidays.contains(day)).map { $0 + grantMinutes(rule.name, user: user) }
    }

    /// May `app` start at `instant` for `user`? Time is counted up to it first, in memory: an exec
    /// waiting for this answer never waits for the disk.
    public mutating func decide(
        _ app: String, user: String, isPerson: Bool = true, at instant: Instant, resolver: inout ZoneResolver
    ) -> AppDecision {
        guard let rule = policy.app(named: app) else {
            return AppDecision(allowed: true, reason: "not in the policy", nextChange: nil, secondsLeft: nil)
        }
        count(until: instant.monotonic)
        return AppEvaluator.decide(
            rule, user: user, isPerson: isPerson, at: instant.second, resolver: &resolver,
            usedSeconds: usedSeconds(AppUsageKey(app: app, user: user)), grantMinutes: grantMinutes(app, user: user),
            openUntil: openUntil(app, user: user), holidays: holidays)
    }

    /// A process of `app` started (allowed by the guard, or through `reveille run`).
    public mutating func started(pid: Int32, app: String, user: String, now: Double) {
        count(until: now)
        running.append(Process(key: AppUsageKey(app: app, user: user), pid: pid))
    }

    /// A followed process ended.
    public mutating func exited(pid: Int32, now: Double) -> [Action] {
        count(until: now)
        guard let index = running.firstIndex(where: { $0.pid == pid }) else { return [] }
        let process = running.remove(at: index)
        return [
            .log(
                .info,
                "app \(process.key.app) (pid \(pid)) ended; \((usage[process.key] ?? 0) / 60) min today")
        ]
    }

    /// Time passed: count it, save it, warn, end what must stop, and say when to look again.
    /// Windows are read on `instant`'s wall clock; time is counted on its monotonic one.
    public mutating func review(at instant: Instant, resolver: inout ZoneResolver) -> [Action] {
        let now = instant.monotonic
        count(until: now)
        var actions = flush()
        var next: [Double] = running.isEmpty ? [] : [reviewSeconds]
        for key in Set(running.map(\.key)).sorted() {
            guard let rule = policy.app(named: key.app) else { continue }
            let decision = AppEvaluator.decide(
                rule, user: key.user, at: instant.second, resolver: &resolver, usedSeconds: usedSeconds(key),
                grantMinutes: grantMinutes(key.app, user: key.user), openUntil: openUntil(key.app, user: key.user),
                holidays: holidays)
            if decision.allowed {
                guard let left = decision.secondsLeft else { continue }
                // The smallest notice reached and not given yet: one notice per review, never a
                // burst of the earlier ones after a jump.
                let given = warned[key] ?? Int.max
                if let due = noticeSeconds.last(where: { left <= $0 && $0 < given }) {
                    warned[key] = due
                    let chime = warnSeconds < given && left <= warnSeconds
                    if chime {
                        actions.append(
                            .log(
                                .notice,
                                "app \(key.app) of \(key.user): \(max(1, (left + 59) / 60)) min left, then it is ended")
                        )
                    }
                    actions.append(
                        .warn(app: key.app, user: key.user, secondsLeft: left, reason: decision.reason, chime: chime))
                }
                let nextNotice = noticeSeconds.first { $0 < (warned[key] ?? Int.max) && $0 < left }
                next.append(Double(nextNotice.map { left - $0 } ?? left))
                continue
            }
            for index in running.indices where running[index].key == key {
                let pid = running[index].pid
                if let since = running[index].terminatedAt {
                    guard !running[index].killed else { continue }
                    if now - since >= killGraceSeconds {
                        running[index].killed = true
                        actions.append(.log(.warning, "app \(key.app) (pid \(pid)) ignored SIGTERM; SIGKILL"))
                        actions.append(.signal(pid: pid, .kill))
                    } else {
                        next.append(since + killGraceSeconds - now)
                    }
                } else {
                    running[index].terminatedAt = now
                    actions.append(
                        .log(
                            .notice, "app \(key.app) (pid \(pid)) of \(key.user) must stop: \(decision.reason); SIGTERM"
                        ))
                    actions.append(.signal(pid: pid, .terminate))
                    next.append(killGraceSeconds)
                }
            }
        }
        return actions + [.wake(after: next.map { max(0.01, $0) }.min())]
    }

    /// Saves what was counted and not saved yet (at shutdown).
    public mutating func flush() -> [Action] {
        guard let day, !unsaved.isEmpty else { return [] }
        let totals = Dictionary(uniqueKeysWithValues: unsaved.map { ($0, usage[$0] ?? 0) })
        unsaved.removeAll()
        return [.save(totals, on: day)]
    }

    // MARK: Counting

    /// Adds the whole seconds since the last count to every app running now, once per app and
    /// user however many of its processes run.
    private mutating func count(until now: Double) {
        guard let last = lastCount, day != nil else {
            lastCount = now
            return
        }
        let elapsed = Int((now - last).rounded(.down))
        guard elapsed > 0 else {
            if now < last { lastCount = now }  // the clock went back: count from here
            return
        }
        lastCount = last + Double(elapsed)
        for key in Set(running.map(\.key)) {
            usage[key, default: 0] += elapsed
            unsaved.insert(key)
        }
    }
}
