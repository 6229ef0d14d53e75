import FoundationEssentials

/// The one decision-maker of the daemon: which alarm rings, when the daemon must wake next, what a
/// snooze, an answer or a tag does, whether the NFC reader polls, and what is written to the state.
/// A pure state machine in the style of hummingbird's `HTTPConnectionStateHandler.StateMachine`:
/// every event comes in with `now` and returns the actions the edges carry out, in order. It reads
/// no clock, does no I/O and never sleeps; docs/ARCHITECTURE.md lists its events and actions.
public struct AlarmClock: Sendable {
    /// Limits that do not change while the daemon runs.
    public struct Limits: Sendable {
        public var ring: RingPolicy
        /// An occurrence found late (daemon down, clock jump) still rings if it is at most this old.
        public var graceSeconds: Int
        /// The longest the daemon sleeps without looking, as a safety net.
        public var longestSleepSeconds: Int
        /// How far back a late look searches for occurrences (a week: older ones cannot ring anyway).
        public var lookBackSeconds: Int
        /// A chime is followed by its text, spoken (`[voice] speak_reminders`).
        public var speakReminders: Bool
        /// How long before it the next ring may be dismissed early, with its challenge.
        public var earlyDismissSeconds: Int
        /// An occurrence found at most this late still rings (`--grace`'s default, 15 minutes).
        public static let defaultGraceSeconds = 15 * 60

        public init(
            ring: RingPolicy = RingPolicy(), graceSeconds: Int = Limits.defaultGraceSeconds,
            longestSleepSeconds: Int = 3600,
            lookBackSeconds: Int = 7 * 86_400, speakReminders: Bool = true, earlyDismissSeconds: Int = 3600
        ) {
            self.earlyDismissSeconds = earlyDismissSeconds
            self.speakReminders = speakReminders
            self.ring = ring
            self.graceSeconds = graceSeconds
            self.longestSleepSeconds = longestSleepSeconds
            self.lookBackSeconds = lookBackSeconds
        }
    }

    /// What the state held when the daemon started.
    public struct Stored: Sendable {
        /// Occurrences up to this instant were rung or recorded as missed; nil on the first start ever.
        public var evaluatedThrough: Int?
        /// The session that was ringing or snoozed when the daemon stopped.
        public var activeSession: RingSession?
        /// Occurrences already in the history (alarm id and due instant), so none is handled twice.
        public var handled: [Occurrence]
        /// The highest session id in the history.
        public var lastSessionID: Int
        /// Chimes already played, skipped or missed (key and due instant), so none plays twice.
        public var handledChimes: [String: Int]
        /// The last session dismissed, when its wake-up check is still open.
        public var wakeCheck: RingSession?

        /// How far back the store is read at start: the sessions of the last week (as far as a
        /// catch-up looks back) and the chimes of the last eight days.
        public static func since(now: Int) -> (sessions: Int, chimes: Int) {
            (now - 7 * 86_400, now - 8 * 86_400)
        }

        public init(
            evaluatedThrough: Int?, activeSession: RingSession?, handled: [Occurrence], lastSessionID: Int,
            handledChimes: [String: Int] = [:], wakeCheck: RingSession? = nil
        ) {
            self.wakeCheck = wakeCheck
            self.evaluatedThrough = evaluatedThrough
            self.activeSession = activeSession
            self.handled = handled
            self.lastSessionID = lastSessionID
            self.handledChimes = handledChimes
        }
    }

    /// One alarm's occurrence: the alarm and the instant it was due.
    public struct Occurrence: Hashable, Sendable {
        public var alarmID: Int
        public var instant: Int

        public init(alarmID: Int, instant: Int) {
            self.alarmID = alarmID
            self.instant = instant
        }
    }

    public let limits: Limits
    /// The alarm ringing or snoozed, if any.
    public internal(set) var session: RingSession?
    /// The session dismissed last, while its wake-up check waits to ask or asks "Are you up?".
    public internal(set) var wakeCheck: RingSession?
    /// The sunrise before the next ring, while it lasts.
    public internal(set) var sunrise: Sunrise?
    /// No sound device works: what rings is not heard.
    public internal(set) var soundSilent = false
    /// The occurrence whose sunrise was announced last (announced once each).
    var lastSunrise: Occurrence?
    /// The occurrence whose quiet lead sound plays (`--lead-sound`), until the ring takes over.
    var leadSoundFor: Occurrence?
    /// The reader polls: an alarm rings or is snoozed, the wake-up check asks, or a tag may unlock.
    var wantsReader: Bool { session != nil || isAskingIfAwake || unlocks.waitsForTap }
    /// The wake-up check asks now: a key, a tap or a tag answers it.
    public var isAskingIfAwake: Bool { wakeCheck?.wakeCheck?.outcome == .asking }
    /// Occurrences up to this instant have been rung or recorded as missed.
    public internal(set) var evaluatedThrough: Int?
    /// The evaluation point last written down (`followTime`).
    var persistedThrough: Int?
    /// Alarms, rules, overrides and the master switch, as the store last said.
    public internal(set) var schedule: ScheduleState
    public internal(set) var zone: Zone
    public internal(set) var readerHealth: ReaderHealth
    /// When the reader stopped working, as the machine saw it (nil while it works, or when it was
    /// not working when the daemon started): said with a ring whose math stands in for a tag.
    public internal(set) var readerLostAt: Int?
    /// A tag lies on the reader. It does not count as a tap: it must be lifted and tapped again.
    public internal(set) var tagOnReader = false
    /// The next ring after `evaluatedThrough`, once known (nil inside: none within the horizon).
    public internal(set) var nextRing: Int??
    /// The decision behind `nextRing` (which alarm, at what local time, by which layer): the one
    /// next ring, which `status`, watchers and the voice show as the machine decided it.
    public internal(set) var nextRingDecision: Decision?
    /// Where each alarm's unlock stands (`Unlocks`).
    var unlocks = Unlocks()
    var polling = false
    var publishedNextRing: Int??
    var handled: Set<Occurrence>
    var nextSessionID: Int
    var lastTick: Instant?
    var warnedClockBehind = false
    /// While the clock reads before `evaluatedThrough` and is not known to be right: that instant.
    /// Nothing rings meanwhile (`status` says so); see `catchUp`.
    public internal(set) var waitingForClock: Int?
    /// Trust in the clock: a jump ahead not confirmed yet, and what was judged under it (`ClockTrust`).
    var trust = ClockTrust()
    /// A start this long after the last instant handled, with no network time, counts as a jump.
    static let startGapSeconds = 600

    /// Whether what is judged now stands whatever the clock does later: the kernel says the clock
    /// is synchronized, or the machine has seen no forward jump of it that nothing has confirmed
    /// since (a clock set ahead by hand, a wrong RTC found while running; network time or a day
    /// of steady running confirms a jump). A step back of a trusted clock is an error of the
    /// clock, not a correction.
    public var clockTrusted: Bool { trust.trusted }
    /// Why the occurrences being caught up were not rung at their time, for the missed records' log.
    var catchUpReason: String?
    /// How often the machine looks again while it waits for the clock.
    static let clockCheckSeconds = 60
    var random: ProblemRandom
    /// The reminders: due, waiting, being checked, handled (ChimeQueue.swift).
    var chimes: ChimeQueue

    /// A chime played lately, by key (the last few): what "again in 10 minutes" repeats.
    public func playedChime(key: String) -> Chime? { chimes.recent.last { $0.key == key } }

    /// The chime played last, if any: what the bedside's snooze key repeats right after it.
    public var lastChime: Chime? { chimes.recent.last }

    /// Whether a chime played within the last two minutes, nothing ringing since: the bedside's
    /// snooze key then asks for it again.
    public func chimedLately(now: Int) -> Bool {
        guard session == nil, let played = chimes.lastPlayedAt else { return false }
        return now - played <= 120 && now >= played
    }
    /// Due chimes waiting for a ringing alarm to stop.
    public var waitingChimes: [Chime] { chimes.waiting }
    /// Due chimes whose `--unless` command runs, by key.
    public var checkingChimes: [String: Chime] { chimes.checking }

    public init(
        schedule: ScheduleState, zone: Zone, readerHealth: ReaderHealth, stored: Stored, limits: Limits,
        random: ProblemRandom = ProblemRandom()
    ) {
        self.schedule = schedule
        self.zone = zone
        self.readerHealth = readerHealth
        self.limits = limits
        self.evaluatedThrough = stored.evaluatedThrough
        self.persistedThrough = stored.evaluatedThrough
        self.session = stored.activeSession
        self.wakeCheck = stored.wakeCheck?.wakeCheck?.isOpen == true ? stored.wakeCheck : nil
        self.handled = Set(stored.handled)
        self.nextSessionID = stored.lastSessionID + 1
        self.random = random
        self.chimes = ChimeQueue(
            handled: stored.handledChimes, evaluatedThrough: stored.evaluatedThrough,
            graceSeconds: limits.graceSeconds, speak: limits.speakReminders)
    }

    // MARK: Events

    /// The daemon started: a session that was ringing rings again at once, a snoozed one keeps its
    /// deadline and count; then whatever came due while the daemon was down.
    /// `clockSynchronized`: as for `tick`; a start after a long gap with no network time yet takes
    /// the gap for a jump ahead that nothing has confirmed (see `tick`).
    mutating func start(at instant: Instant, clockSynchronized: Bool = false) -> [ClockAction] {
        let (now, monotonic) = (instant.wall, instant.monotonic)
        var actions: [ClockAction] = []
        if let session {
            if session.state == .ringing {
                actions.append(.play(session.settings))
                actions.append(
                    .log(.notice, "session #\(session.id) of alarm \(session.settings.name) was ringing; ringing again")
                )
            } else {
                actions.append(
                    .log(
                        .notice,
                        "session #\(session.id) of alarm \(session.settings.name) is snoozed (\(session.snoozeCount) used)"
                    ))
            }
            actions += setPolling(true)
            actions.append(.publish(.session(session)))
        }
        if let checked = wakeCheck, let check = checked.wakeCheck {
            actions.append(
                .log(
                    .notice,
                    "the wake-up check of alarm \(checked.settings.name) (session #\(checked.id)) is \(check.outcome.rawValue == "asking" ? "asking" : "waiting to ask")"
                ))
            if check.outcome == .asking {
                actions += [.warningTone, .say(Spoken.areYouUp)] + setPolling(true)
                actions.append(.publish(.wakeCheck(checked)))
            }
        }
        // Calendars may have changed while the daemon was down.
        actions += removeHolidayGatedOverrides(today: ZoneResolver(zone: zone).local(at: Int(now)).date)
        if !clockSynchronized, let through = evaluatedThrough,
            Int(now.rounded(.down)) - through > AlarmClock.startGapSeconds
        {
            // Started long after the last instant handled, with no network time yet: a power cut
            // that lasted, or a clock that is ahead (a wrong RTC or fake-hwclock file). The machine
            // cannot tell them apart, so the gap counts as a jump ahead until network time or a day
            // of steady running confirms it; a correction meanwhile judges again what it judged.
            trust.jump = .unconfirmed(from: through, at: monotonic)
            actions.append(
                .log(
                    .info,
                    "started \(DurationText.format(seconds: Int(now.rounded(.down)) - through)) after the last instant handled, with no network time yet: what comes due is judged again if the clock turns out to be ahead"
                ))
        }
        return actions + tick(at: instant, clockWasSet: false, clockSynchronized: clockSynchronized)
    }

    /// Time to look: at the instant asked for, when the system clock was set, or as a safety net.
    /// Ends snoozes, stops a ring that lasted too long, rings what came due and records what was missed.
    /// `clockSynchronized`: the kernel says network time keeps the clock right (adjtimex), which
    /// ends a wait for a clock that reads before the last handled instant.
    mutating func tick(at instant: Instant, clockWasSet: Bool, clockSynchronized: Bool = false)
        -> [ClockAction]
    {
        let (now, monotonic) = (instant.wall, instant.monotonic)
        var actions: [ClockAction] = []
        var steppedBack = false
        if let last = lastTick {
            let drift = (now - last.wall) - (monotonic - last.monotonic)
            if abs(drift) > 2 || clockWasSet {
                actions.append(.log(.notice, "the clock jumped by \(AlarmClock.signed(drift)); checking what came due"))
            }
            if drift > 2 {
                trust.jump = .unconfirmed(
                    from: Int(last.wall.rounded(.down)) + Int(monotonic - last.monotonic), at: monotonic)
            }
            // Set back while running: someone (time sync, an admin) corrected a clock that was ahead.
            steppedBack = drift < -2
        }
        lastTick = instant
        trust.synchronized = clockSynchronized
        let seconds = instant.second
        actions += advanceSession(now: seconds)
        actions += advanceWakeCheck(now: seconds)
        actions += expireUnlocks(now: seconds)
        actions += catchUp(now: now, clockTrusted: clockSynchronized || steppedBack, stepSeen: steppedBack)
        actions += chimes.due(now: seconds, schedule: schedule, zone: zone, limits: limits, ringing: session)
        // Network time confirms the clock, or a day of steady running: a jump ahead seen before
        // was right after all.
        if waitingForClock == nil, trust.confirms(at: monotonic) {
            trust.confirm()  // judged under a clock now known right: they stand
            actions.append(
                .log(
                    .info,
                    clockSynchronized
                        ? "network time confirms the clock: the jump ahead was right"
                        : "the clock has run steadily for a day since it jumped ahead: taken as right"))
        }
        notePersisted(actions)
        actions += followTime()
        actions += purgeJudgedDays()
        return actions + wake(now: seconds)
    }

    /// Date overrides and one-shots of days the machine has judged to their end go: after the
    /// catch-up (so a crash past midnight still finds yesterday's "off"), never before. The
    /// snapshot drops them at once; the edge deletes and turns them off in the store.
    /// Under a clock that is not trusted (`clockTrusted`: set ahead, not confirmed), nothing goes:
    /// a one-shot or an override of a day that only the wrong clock has passed is still needed
    /// when the clock is put right.
    mutating func purgeJudgedDays() -> [ClockAction] {
        guard let through = evaluatedThrough, waitingForClock == nil, clockTrusted else { return [] }
        let judged = ZoneResolver(zone: zone).local(at: through).date
        func stale(_ alarm: Alarm) -> Bool {
            if alarm.enabled, case .once(let date) = alarm.repeats { return date < judged }
            return false
        }
        guard schedule.overrides.contains(where: { $0.date < judged }) || schedule.alarms.contains(where: stale)
        else { return [] }
        schedule.overrides.removeAll { $0.date < judged }
        schedule.alarms = schedule.alarms.map { alarm in
            var alarm = alarm
            if stale(alarm) { alarm.enabled = false }
            return alarm
        }
        return [.purge(before: judged), .publish(.schedule)]
    }

    /// Keeps `persistedThrough` at the last evaluation point the actions write down.
    mutating func notePersisted(_ actions: [ClockAction]) {
        for case .persist(_, let through?) in actions { persistedThrough = through }
    }

    /// The evaluation point written down follows quiet time too: at most `followSeconds` behind,
    /// and past every local midnight. A restart after a crash (power cut, `kill -9`, watchdog)
    /// then catches up from there, not from the last ring days back, when a day's overrides it
    /// judged may be purged already.
    mutating func followTime() -> [ClockAction] {
        guard let through = evaluatedThrough, waitingForClock == nil else { return [] }
        if let persisted = persistedThrough {
            guard through > persisted else { return [] }
            let resolver = ZoneResolver(zone: zone)
            let sameDay = resolver.local(at: persisted).date == resolver.local(at: through).date
            guard !sameDay || through - persisted >= AlarmClock.followSeconds else { return [] }
        }
        persistedThrough = through
        return [.persist([], evaluatedThrough: through)]
    }

    /// How far behind quiet time the written evaluation point may fall.
    static let followSeconds = 3600

    /// The daemon stops: the sound stops, how far occurrences were handled is kept.
    func shutDown() -> [ClockAction] {
        [.stopSound, .persist([], evaluatedThrough: evaluatedThrough)]
    }

}
