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
    public private(set) var session: RingSession?
    /// The session dismissed last, while its wake-up check waits to ask or asks "Are you up?".
    public private(set) var wakeCheck: RingSession?
    /// The sunrise before the next ring, while it lasts.
    public private(set) var sunrise: Sunrise?
    /// No sound device works: what rings is not heard.
    public private(set) var soundSilent = false
    /// The occurrence whose sunrise was announced last (announced once each).
    private var lastSunrise: Occurrence?
    /// The occurrence whose quiet lead sound plays (`--lead-sound`), until the ring takes over.
    private var leadSoundFor: Occurrence?
    /// Alarms whose challenge was passed (for a change within their commitment, or to dismiss
    /// the next ring early), until when, and how.
    public private(set) var unlockedUntil: [Int: Int] = [:]
    private var unlockedBy: [Int: DismissalMethod] = [:]
    /// Problems asked to unlock an alarm for a change, by alarm.
    private var unlockProblems: [Int: MathProblem] = [:]
    /// Alarms waiting for their tag to unlock them, until when (the reader polls meanwhile).
    private var tagUnlocks: [Int: Int] = [:]
    /// How long a tap to unlock is waited for.
    static let tagUnlockSeconds = 120
    /// The reader polls: an alarm rings or is snoozed, the wake-up check asks, or a tag may unlock.
    private var wantsReader: Bool { session != nil || isAskingIfAwake || !tagUnlocks.isEmpty }
    /// The wake-up check asks now: a key, a tap or a tag answers it.
    public var isAskingIfAwake: Bool { wakeCheck?.wakeCheck?.outcome == .asking }
    /// Occurrences up to this instant have been rung or recorded as missed.
    public private(set) var evaluatedThrough: Int?
    /// The evaluation point last written down (`followTime`).
    private var persistedThrough: Int?
    /// Alarms, rules, overrides and the master switch, as the store last said.
    public private(set) var schedule: ScheduleState
    public private(set) var zone: Zone
    public private(set) var readerHealth: ReaderHealth
    /// When the reader stopped working, as the machine saw it (nil while it works, or when it was
    /// not working when the daemon started): said with a ring whose math stands in for a tag.
    public private(set) var readerLostAt: Int?
    /// A tag lies on the reader. It does not count as a tap: it must be lifted and tapped again.
    public private(set) var tagOnReader = false
    /// The next ring after `evaluatedThrough`, once known (nil inside: none within the horizon).
    public private(set) var nextRing: Int??
    /// The decision behind `nextRing` (which alarm, at what local time, by which layer): the one
    /// next ring, which `status`, watchers and the voice show as the machine decided it.
    public private(set) var nextRingDecision: Decision?
    private var polling = false
    private var publishedNextRing: Int??
    private var handled: Set<Occurrence>
    private var nextSessionID: Int
    private var lastTick: Instant?
    private var warnedClockBehind = false
    /// While the clock reads before `evaluatedThrough` and is not known to be right: that instant.
    /// Nothing rings meanwhile (`status` says so); see `catchUp`.
    public private(set) var waitingForClock: Int?
    /// The wall-clock second before the last forward jump seen while running: where a clock that
    /// then turns out to have been wrong went wrong.
    private var lastJumpFrom: Int?
    /// The monotonic reading at that jump: a day of steady running after it confirms it.
    private var lastJumpAt: Double?
    /// How long a clock runs steadily after a jump ahead before the jump is taken as right.
    static let jumpConfirmedSeconds = 86_400.0
    /// A start this long after the last instant handled, with no network time, counts as a jump.
    static let startGapSeconds = 600
    /// The kernel said at the last look that network time keeps the clock right (adjtimex).
    private var clockSynchronized = false
    /// Occurrences handled while the clock was not trusted (`clockTrusted`): a correction of the
    /// clock may judge them again. Those handled under a trusted clock never are.
    private var untrustedHandled: Set<Occurrence> = []
    /// The missed records made while the clock was not trusted, by occurrence: a correction that
    /// finds an occurrence still to come withdraws its record (`withdrawMissed`).
    private var untrustedMissed: [Occurrence: Int] = [:]

    /// Whether what is judged now stands whatever the clock does later: the kernel says the clock
    /// is synchronized, or the machine has seen no forward jump of it that nothing has confirmed
    /// since (a clock set ahead by hand, a wrong RTC found while running; network time or a day
    /// of steady running confirms a jump). A step back of a trusted clock is an error of the
    /// clock, not a correction.
    public var clockTrusted: Bool { clockSynchronized || lastJumpFrom == nil }
    /// Why the occurrences being caught up were not rung at their time, for the missed records' log.
    private var catchUpReason: String?
    /// How often the machine looks again while it waits for the clock.
    static let clockCheckSeconds = 60
    private var random: ProblemRandom
    /// The reminders: due, waiting, being checked, handled (ChimeQueue.swift).
    private var chimes: ChimeQueue

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
            lastJumpFrom = through
            lastJumpAt = monotonic
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
                lastJumpFrom = Int(last.wall.rounded(.down)) + Int(monotonic - last.monotonic)
                lastJumpAt = monotonic
            }
            // Set back while running: someone (time sync, an admin) corrected a clock that was ahead.
            steppedBack = drift < -2
        }
        lastTick = instant
        self.clockSynchronized = clockSynchronized
        let seconds = instant.second
        actions += advanceSession(now: seconds)
        actions += advanceWakeCheck(now: seconds)
        actions += expireUnlocks(now: seconds)
        actions += catchUp(now: now, clockTrusted: clockSynchronized || steppedBack, stepSeen: steppedBack)
        actions += chimes.due(now: seconds, schedule: schedule, zone: zone, limits: limits, ringing: session)
        // Network time confirms the clock, or a day of steady running: a jump ahead seen before
        // was right after all.
        if lastJumpFrom != nil, waitingForClock == nil,
            clockSynchronized || monotonic - (lastJumpAt ?? monotonic) >= AlarmClock.jumpConfirmedSeconds
        {
            lastJumpFrom = nil
            untrustedHandled = []  // judged under a clock now known right: they stand
            untrustedMissed = [:]
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
    private mutating func purgeJudgedDays() -> [ClockAction] {
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

    // MARK: The bedside keys, and what the voice says

    /// The snooze key: a snooze, or, refused because none are left, the voice says how to stop it.
    mutating func snoozeByKey(now: Int) -> ClockReply {
        var reply = snooze(now: now)
        if case .failure = reply.result, let session, session.snoozesLeft == 0 {
            reply.actions.append(.say(Spoken.noSnoozesLeft(challenge: session.challenge)))
        }
        return reply
    }

    /// A number key while an alarm rings: the problem aloud, or "tap your tag" for an alarm only
    /// a tag stops.
    mutating func problemByKey(now: Int) -> ClockReply {
        if let session, session.challenge == .nfc {
            return ClockReply(result: .success(session), actions: [.say(Spoken.tapYourTag)])
        }
        var reply = requestProblem(now: now)
        if case .success(let asked) = reply.result, let problem = asked.problem {
            reply.actions.append(.say(Spoken.problem(problem)))
        }
        return reply
    }

    /// An answer typed on the keypad: a wrong one brings a new problem, said aloud.
    mutating func answerByKey(_ value: Int, now: Int) -> ClockReply {
        var reply = answer(value, now: now)
        if case .success(let session) = reply.result, session.state != .dismissed, let problem = session.problem {
            reply.actions.append(.say(Spoken.wrongAnswer(newProblem: problem)))
        }
        return reply
    }

    /// A key while nothing rings: the time and the next ring (the machine's own), aloud.
    func timeAndNext(now: Int) -> [ClockAction] {
        let resolver = ZoneResolver(zone: zone)
        let local = resolver.local(at: now)
        let next = nextRingDecision.flatMap { decision -> (String, LocalTime)? in
            guard let instant = decision.ringInstant else { return nil }
            let day = resolver.local(at: instant).date
            let words =
                switch day.dayNumber - local.date.dayNumber {
                case 0: "today"
                case 1: "tomorrow"
                default: "on \(day.weekday.fullName)"
                }
            return (words, decision.time)
        }
        return [.say(Spoken.timeAndNext(now: local.time, next: next))]
    }

    /// An app's time runs out in `secondsLeft` (the app guard's machine says when): the hooks hear
    /// of it; a short tone sounds too, unless an alarm is on (ringing or snoozed), which it would
    /// only muddle.
    func appTimeRunningOut(app: String, user: String, secondsLeft: Int) -> [ClockAction] {
        (session == nil ? [.warningTone] : []) + [.appWarningHook(app: app, user: user, secondsLeft: secondsLeft)]
    }

    /// Keeps `persistedThrough` at the last evaluation point the actions write down.
    private mutating func notePersisted(_ actions: [ClockAction]) {
        for case .persist(_, let through?) in actions { persistedThrough = through }
    }

    /// The evaluation point written down follows quiet time too: at most `followSeconds` behind,
    /// and past every local midnight. A restart after a crash (power cut, `kill -9`, watchdog)
    /// then catches up from there, not from the last ring days back, when a day's overrides it
    /// judged may be purged already.
    private mutating func followTime() -> [ClockAction] {
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

    /// The store's alarms, rules, overrides or master switch changed, as of `instant` (when the
    /// request was read). What was due by the old schedule rings first, by a look at `instant` with
    /// the schedule the machine still holds; from then on the new one holds (an alarm added for a
    /// time already past today is not taken for a missed one). Nobody has to remember to look first.
    mutating func scheduleChanged(
        _ schedule: ScheduleState, at instant: Instant, clockSynchronized: Bool = false
    ) -> [ClockAction] {
        let due = tick(at: instant, clockWasSet: false, clockSynchronized: clockSynchronized)
            .filter { if case .wake = $0 { false } else { true } }
        return due + take(schedule, now: instant.second)
    }

    private mutating func take(_ schedule: ScheduleState, now: Int) -> [ClockAction] {
        var schedule = schedule
        let stored = schedule.heldAgainstHolidays
        let holds = holdCommittedRings(against: schedule.holidays, stored: stored, now: now)
        let alarms = Set(schedule.alarms.map(\.id))
        schedule.heldAgainstHolidays = holds.held.filter { alarms.contains($0.alarmID) }
        self.schedule = schedule
        nextRing = nil
        chimes.scheduleChanged(now: now)
        var actions: [ClockAction] = holds.said + [.publish(.schedule)]
        if schedule.heldAgainstHolidays != stored { actions.append(.keepHeldRings(schedule.heldAgainstHolidays)) }
        if let through = evaluatedThrough, now > through {
            evaluatedThrough = now
            actions.append(.persist([], evaluatedThrough: now))
            persistedThrough = now
        }
        actions += purgeJudgedDays()  // what the store still holds of judged days
        actions += removeHolidayGatedOverrides(today: ZoneResolver(zone: zone).local(at: now).date)
        return actions + wake(now: now)
    }

    /// A calendar that changes inside a commitment window cannot newly silence the committed ring
    /// (docs/guide/ringing.md, "What a commitment holds"): a ring the new holidays would silence, whose alarm is
    /// committed and not unlocked, is held (it rings; the holiday applies to that alarm after it).
    /// The holds kept in the state (`stored`) stay; holds of days gone by go. Returns the holds and what is said of the new ones.
    private func holdCommittedRings(against holidays: [CivilDate: String], stored: Set<HeldRing>, now: Int) -> (
        held: Set<HeldRing>, said: [ClockAction]
    ) {
        let resolver = ZoneResolver(zone: zone)
        let today = resolver.local(at: now).date
        var held = schedule.heldAgainstHolidays.union(stored).filter { $0.date >= today }
        var probe = schedule
        probe.holidays = holidays
        probe.heldAgainstHolidays = held
        var said: [ClockAction] = []
        for weakening in Commitment.weakenings(before: schedule, after: probe, zone: zone, now: now)
        where !isUnlocked(weakening.alarm.id, now: now) {
            let ring = resolver.local(at: weakening.ringsAt)
            guard let holiday = holidays[ring.date], schedule.holidays[ring.date] == nil else { continue }
            held.insert(HeldRing(alarmID: weakening.alarm.id, date: ring.date))
            said.append(
                .log(
                    .notice,
                    "the calendars make \(ring.date) a holiday (\(holiday)), but alarm \(weakening.alarm.name) is committed (--commit \(DurationText.format(seconds: weakening.alarm.commitSeconds))): its ring at \(ring.time.hoursAndMinutes) stands, and the holiday applies to it after that ring"
                ))
        }
        return (held, said)
    }

    /// Date overrides from today on whose day is now a holiday of the one alarm they name, which
    /// skips holidays: they can no longer do anything (the holiday gates every layer), so they go,
    /// each said in the log and to watchers, with the holiday that took its place.
    private mutating func removeHolidayGatedOverrides(today: CivilDate) -> [ClockAction] {
        let gated = schedule.overrides.compactMap { override -> (DateOverride, String)? in
            guard override.date >= today, let holiday = schedule.holidayGating(override) else { return nil }
            return (override, holiday)
        }
        guard !gated.isEmpty else { return [] }
        let ids = Set(gated.map(\.0.id))
        schedule.overrides.removeAll { ids.contains($0.id) }
        var actions: [ClockAction] = []
        for (override, holiday) in gated {
            let alarm = schedule.alarms.first { $0.id == override.alarmID }?.name ?? "#\(override.alarmID ?? 0)"
            actions += [
                .removeOverride(id: override.id),
                .log(
                    .notice,
                    "override #\(override.id) (\(override.date) \(override.change), alarm \(alarm)) removed: \(override.date) is now a holiday (\(holiday)) and alarm \(alarm) skips holidays"
                ),
                .publish(.overrideRemoved(override, holiday: holiday)),
            ]
        }
        return actions + [.publish(.schedule)]
    }

    /// The time zone alarm times are read in changed: another zone, or new rules for the same one
    /// (a tzdata update).
    mutating func zoneChanged(to zone: Zone, now: Int) -> [ClockAction] {
        guard zone != self.zone else { return [] }
        let from = self.zone
        self.zone = zone
        nextRing = nil
        chimes.zoneChanged()
        let what =
            zone.identifier == from.identifier
            ? "the rules of time zone \(zone.identifier) changed (\(zone.origin))"
            : "the time zone changed from \(from.identifier) to \(zone.identifier) (\(zone.origin))"
        return [.log(.notice, "\(what); recomputing the schedule")] + wake(now: now)
    }

    /// The sleeper asks to snooze.
    mutating func snooze(now: Int) -> ClockReply {
        transition(now: now) { session, _ throws(RingRefusal) in
            let actions = try session.snooze(now: now)
            return [.log(.info, "alarm \(session.settings.name) snoozed (\(session.snoozeCount) used)")]
                + actions.map { .ring($0) }
        }
    }

    /// The sleeper asks for the math problem (the current one, or a new one): the sound drops.
    mutating func requestProblem(now: Int) -> ClockReply {
        transition(now: now) { session, random throws(RingRefusal) in
            try session.requestProblem(now: now, using: &random).1.map { .ring($0) }
        }
    }

    /// An answer to the current problem: right dismisses, wrong gives a new problem.
    mutating func answer(_ value: Int, now: Int) -> ClockReply {
        transition(now: now) { session, random throws(RingRefusal) in
            let (correct, actions) = try session.answer(value, now: now, using: &random)
            if correct, session.state.isActive {
                return [
                    .log(
                        .info,
                        "alarm \(session.settings.name): right answer; \(session.problemsLeft) more to stop it (math stands in for its tag)"
                    )
                ]
            }
            if correct {
                return [
                    .log(
                        .notice,
                        "alarm \(session.settings.name) dismissed by math (\(session.wrongAnswers) wrong answers)")
                ]
                    + actions.map { .ring($0) }
            }
            return [.log(.info, "alarm \(session.settings.name): wrong answer \(value)")]
        }
    }

    /// The reader sees a tag. `fresh`: it was placed while the reader was polling; otherwise it was
    /// already lying there when polling began (or the reader was reopened), which is no tap.
    /// `label`: the registered tag's label, nil for a tag that is not registered.
    mutating func tagPlaced(uid: String, label: String?, fresh: Bool, now: Int) -> [ClockAction] {
        tagOnReader = true
        guard let active = session else {
            if isAskingIfAwake, fresh, let label {
                return confirmAwake(now: now, by: "tag \"\(label)\"").actions
            }
            if fresh, let label, let unlocked = unlockByTag(label, now: now) { return unlocked }
            return [.log(.info, "tag \(uid) placed; nothing is ringing")]
        }
        guard fresh else {
            return [
                .log(
                    .notice,
                    "a tag is on the reader: lift it, then tap it (alarm \(active.settings.name) \(active.state.rawValue))"
                ),
                .publish(.tagOnReader(true)),
            ]
        }
        guard let label else {
            return [.log(.notice, "tag \(uid) is not registered; alarm \(active.settings.name) rings on")]
        }
        let reply = transition(now: now) { session, _ throws(RingRefusal) in
            let actions = try session.tag(label, now: now)
            return [.log(.notice, "alarm \(session.settings.name) dismissed by tag \"\(label)\"")]
                + actions.map { .ring($0) }
        }
        if case .failure(let refusal) = reply.result {
            return [.log(.notice, "tag \"\(label)\": \(refusal.message)")]
        }
        return reply.actions
    }

    /// The tag left the reader: the next placement is a tap.
    mutating func tagLifted() -> [ClockAction] {
        guard tagOnReader else { return [] }
        tagOnReader = false
        return session == nil ? [] : [.publish(.tagOnReader(false))]
    }

    /// The reader's health changed. An alarm that only a tag could stop takes math too while the
    /// reader is not working, so that no one is left with an alarm they cannot stop.
    mutating func readerHealthChanged(_ health: ReaderHealth, now: Int) -> [ClockAction] {
        guard health != readerHealth else { return [] }
        let wasHealthy = readerHealth.isHealthy
        readerHealth = health
        var actions: [ClockAction] = [.publish(.readerHealth(health))]
        if health.isHealthy {
            readerLostAt = nil
        } else {
            if wasHealthy { readerLostAt = now }
            tagOnReader = false
            if var active = session, active.readerLost(at: readerLostAt, state: health.stateWords) {
                session = active
                actions.append(
                    .log(
                        .warning,
                        "NFC reader \(health) while alarm \(active.settings.name) rings; math dismisses it too now (\(RingSession.fallbackProblems) hard problems)"
                    ))
                actions.append(.persist([active], evaluatedThrough: nil))
                actions.append(.publish(.session(active)))
            }
        }
        return actions
    }

    /// `reveille alarm test`: rings `alarmID` now, as it would ring, recorded as a test (a one-shot
    /// stays on). Refused while another session is active.
    mutating func test(_ alarmID: Int, now: Int) -> ClockReply {
        if let active = session {
            return ClockReply(
                result: .failure(
                    RingRefusal("alarm \(active.settings.name) is \(active.state.rawValue); dismiss it first")),
                actions: [])
        }
        guard let alarm = schedule.alarm(alarmID) else {
            return ClockReply(
                result: .failure(RingRefusal("no alarm #\(alarmID); 'reveille alarm list' shows the ids")), actions: [])
        }
        let (fired, steps) = fire(RingSettings(alarm), scheduledAt: now, now: now, test: true)
        let notes: [SessionStep] = [.log(.notice, "alarm \(alarm.name) rings as a test")] + fallbackNote(fired)
        let actions = apply(fired, steps.map { .ring($0) } + notes, now: now) + wake(now: now)
        return ClockReply(result: .success(fired), actions: actions)
    }

    /// A chime's `--unless` command finished: exit status 0 (`skip`) means it is not needed.
    /// `detail` says how the command ended, for the log.
    mutating func chimeChecked(key: String, skip: Bool, detail: String, now: Int) -> [ClockAction] {
        guard let actions = chimes.checked(key: key, skip: skip, detail: detail, now: now, ringing: session, zone: zone)
        else { return [] }
        return actions + wake(now: now)
    }

    // MARK: Commitment: the alarm's challenge before a change that weakens it

    /// What unlocking an alarm asks: its problem, its tag, or either.
    public struct UnlockAsk: Sendable, Equatable {
        public var alarm: Alarm
        /// The problem to answer; nil when only the alarm's tag unlocks it.
        public var problem: MathProblem?
        /// A tap of one of its tags unlocks it too (the reader polls for it).
        public var tag: Bool
    }

    /// Whether `alarmID` was unlocked for changes (its challenge passed) and still is.
    public func isUnlocked(_ alarmID: Int, now: Int) -> Bool { (unlockedUntil[alarmID] ?? .min) > now }

    /// `reveille unlock`: the alarm's own challenge, as its ring would ask it: its problem (the
    /// same one until answered), or its tag (math too when no reader works).
    mutating func unlockChallenge(for alarmID: Int, now: Int) -> (Result<UnlockAsk, RingRefusal>, [ClockAction])
    {
        guard let alarm = schedule.alarm(alarmID) else {
            return (.failure(RingRefusal("no alarm #\(alarmID); 'reveille alarm list' shows the ids")), [])
        }
        let readerWorks = readerHealth.isHealthy
        // Math stands in for a tag only at the ring, for a reader that fails then: before it there
        // is no hurry, and a reader unplugged on purpose must not open a tag-only alarm.
        if alarm.challenge == .nfc, !readerWorks {
            return (
                .failure(
                    RingRefusal(
                        "alarm \(alarm.name) is stopped only by its tag, and \(readerHealth == .notConfigured ? "no NFC reader is configured ([nfc] in reveille.toml)" : "the NFC reader is \(readerHealth)"): plug the reader in (or wait for it to come back), then 'reveille unlock \(alarm.id)' again; math stands in for the tag only at the ring"
                    )), []
            )
        }
        let tag = alarm.challenge != .math && readerWorks
        var problem: MathProblem?
        if alarm.challenge != .nfc {
            problem = unlockProblems[alarmID] ?? MathProblem.make(alarm.mathDifficulty, using: &random)
            unlockProblems[alarmID] = problem
        }
        var actions: [ClockAction] = []
        if tag {
            tagUnlocks[alarmID] = now + AlarmClock.tagUnlockSeconds
            actions += setPolling(true) + wake(now: now)
        }
        return (.success(UnlockAsk(alarm: alarm, problem: problem, tag: tag)), actions)
    }

    /// An answer to the unlock problem: right, the alarm may be changed for `Commitment.unlockSeconds`;
    /// wrong, a new problem (the result carries it).
    mutating func unlockAnswer(for alarmID: Int, value: Int, now: Int) -> (
        Result<MathProblem?, RingRefusal>, [ClockAction]
    ) {
        guard let problem = unlockProblems[alarmID], let alarm = schedule.alarm(alarmID)
        else {
            return (
                .failure(
                    RingRefusal("no problem was asked for alarm #\(alarmID): 'reveille unlock \(alarmID)' asks one")),
                []
            )
        }
        guard value == problem.answer else {
            let next = MathProblem.make(alarm.mathDifficulty, using: &random)
            unlockProblems[alarmID] = next
            return (.success(next), [.log(.info, "alarm \(alarm.name): wrong answer \(value) to unlock it")])
        }
        return (.success(nil), unlock(alarm, by: .math, now: now))
    }

    /// `reveille dismiss --next`: the next ring, up to `earlyDismissSeconds` before it, is dismissed
    /// now, once its alarm's challenge was passed (`unlockChallenge`); it will not ring. The result
    /// is the history's record; a refusal of `needsChallenge` names the alarm to unlock.
    mutating func dismissNextEarly(now: Int) -> (Result<RingSession, EarlyRefusal>, [ClockAction]) {
        if let session {
            return (
                .failure(
                    .refused(
                        RingRefusal(
                            "alarm \(session.settings.name) is \(session.state.rawValue) now: 'reveille dismiss' stops it"
                        ))), []
            )
        }
        let resolver = ZoneResolver(zone: zone)
        guard let decision = nextRingDecision, let ring = decision.ringInstant,
            let alarm = schedule.alarm(decision.alarmID)
        else { return (.failure(.refused(RingRefusal("no alarm rings ahead: nothing to dismiss"))), []) }
        guard isInEarlyWindow(ring, now: now) else {
            let opens = resolver.local(at: ring - limits.earlyDismissSeconds).time.hoursAndMinutes
            return (
                .failure(
                    .refused(
                        RingRefusal(
                            "alarm \(alarm.name) rings at \(resolver.local(at: ring).time.hoursAndMinutes); it can be dismissed early from \(opens) (\(limits.earlyDismissSeconds / 60) min before)"
                        ))), []
            )
        }
        guard isUnlocked(alarm.id, now: now) else { return (.failure(.needsChallenge(alarm)), []) }
        let method = unlockedBy[alarm.id] ?? .math
        let record = RingSession.dismissedEarly(
            settings: RingSettings(alarm), scheduledAt: ring, now: now, by: method
        ).numbered(takeID())
        markHandled(Occurrence(alarmID: alarm.id, instant: ring))
        unlockedUntil[alarm.id] = nil
        nextRing = nil
        var actions: [ClockAction] = [
            .log(
                .notice,
                "alarm \(alarm.name) due at \(resolver.local(at: ring).time.hoursAndMinutes) dismissed early, \(DurationText.format(seconds: ring - now)) before it (by \(method.rawValue))"
            ),
            .persist([record], evaluatedThrough: nil), .runHook(.dismiss, record),
        ]
        if case .once = alarm.repeats { actions += disable(alarm.id) }
        return (.success(record), actions + wake(now: now))
    }

    /// Why `dismissNextEarly` refused.
    public enum EarlyRefusal: Error, Sendable, Equatable {
        /// Its alarm's challenge must be passed first.
        case needsChallenge(Alarm)
        case refused(RingRefusal)
    }

    /// The alarm's challenge was passed by `method` (`tag`: its label): it is open for
    /// `Commitment.unlockSeconds`.
    private mutating func unlock(_ alarm: Alarm, by method: DismissalMethod, tag: String? = nil, now: Int)
        -> [ClockAction]
    {
        unlockedBy[alarm.id] = method
        unlockProblems[alarm.id] = nil
        tagUnlocks[alarm.id] = nil
        unlockedUntil[alarm.id] = now + Commitment.unlockSeconds
        let by = tag.map { "tag \"\($0)\"" } ?? method.rawValue
        return [
            .log(
                .notice,
                "alarm \(alarm.name) unlocked by \(by): changes that weaken its next ring are allowed for \(Commitment.unlockSeconds / 60) min"
            )
        ] + setPolling(wantsReader) + wake(now: now)
    }

    /// A registered tag tapped while nothing rings: it unlocks the alarms waiting for it.
    private mutating func unlockByTag(_ label: String, now: Int) -> [ClockAction]? {
        let waiting = schedule.alarms.filter { alarm in
            (tagUnlocks[alarm.id] ?? .min) > now && (alarm.tags.isEmpty || alarm.tags.contains(label))
        }
        guard !waiting.isEmpty else { return nil }
        return waiting.flatMap { unlock($0, by: .tag, tag: label, now: now) }
    }

    /// Taps waited for too long are no longer waited for; unlocks run out.
    private mutating func expireUnlocks(now: Int) -> [ClockAction] {
        unlockedUntil = unlockedUntil.filter { $0.value > now }
        guard tagUnlocks.values.contains(where: { $0 <= now }) else { return [] }
        tagUnlocks = tagUnlocks.filter { $0.value > now }
        return setPolling(wantsReader)
    }

    /// The sound output says no device plays (every one failed or stalled), or one does again.
    /// While an alarm rings, that is said loudly: the log, the hooks' `silent`, the watchers.
    mutating func soundChanged(silent: Bool, now: Int) -> [ClockAction] {
        guard silent != soundSilent else { return [] }
        soundSilent = silent
        guard let session, session.state == .ringing else { return [] }
        guard silent else {
            return [
                .log(.notice, "sound is back: alarm \(session.settings.name) is heard again"), .publish(.silent(false)),
            ]
        }
        return [
            .log(
                .error,
                "THE ALARM IS SILENT: no sound device works; alarm \(session.settings.name) rings on unheard (the devices are tried again)"
            ),
            .runHook(.silent, session), .publish(.silent(true)),
        ]
    }

    // MARK: The wake-up check

    /// "Are you up?" answered: a key, a tap on the page, a tag, or `reveille awake` (`by` says
    /// which, for the log and the history).
    mutating func confirmAwake(now: Int, by: String) -> ClockReply {
        guard var checked = wakeCheck else {
            return ClockReply(result: .failure(RingRefusal("no wake-up check is waiting")), actions: [])
        }
        do {
            try checked.passWakeCheck(now: now, by: by)
        } catch {
            return ClockReply(result: .failure(error), actions: [])
        }
        wakeCheck = nil
        let actions: [ClockAction] =
            [
                .log(.notice, "wake-up check of alarm \(checked.settings.name) passed (\(by))"),
                .persist([checked], evaluatedThrough: nil), .runHook(.awake, checked), .publish(.wakeCheck(checked)),
            ] + setPolling(wantsReader) + wake(now: now)
        return ClockReply(result: .success(checked), actions: actions)
    }

    /// The wake-up check's time came: it asks, or, unanswered, it fails and the alarm rings again
    /// as a new session with its challenge (unless another alarm rings already).
    private mutating func advanceWakeCheck(now: Int) -> [ClockAction] {
        guard var checked = wakeCheck, checked.wakeCheck?.nextDeadline.map({ now >= $0 }) == true else { return [] }
        let name = checked.settings.name
        // Another alarm rings or is snoozed when the check would ask: its challenge asks more than
        // "are you up?" does; the check gives way to it (the tone would cut its ring short).
        if let other = session, checked.wakeCheck?.outcome == .waiting {
            try? checked.giveWay(now: now, to: other.id)
            wakeCheck = nil
            return [
                .log(.notice, "wake-up check of alarm \(name) gives way to session #\(other.id), which rings"),
                .persist([checked], evaluatedThrough: nil), .publish(.wakeCheck(checked)),
            ]
        }
        guard let outcome = checked.advanceWakeCheck(now: now) else { return [] }
        guard outcome == .failed else {
            wakeCheck = checked
            return [
                .log(
                    .notice,
                    "wake-up check of alarm \(name): are you up? (waiting until \(ZoneResolver(zone: zone).local(at: checked.wakeCheck!.deadline).time.description))"
                ),
                .warningTone, .say(Spoken.areYouUp), .persist([checked], evaluatedThrough: nil),
                .runHook(.wakeCheck, checked), .publish(.wakeCheck(checked)),
            ] + setPolling(true)
        }
        wakeCheck = nil
        var actions: [ClockAction] = [
            .persist([checked], evaluatedThrough: nil), .runHook(.wakeCheckFailed, checked),
            .publish(.wakeCheck(checked)),
        ]
        guard session == nil else {
            actions.insert(
                .log(.warning, "wake-up check of alarm \(name) failed (no answer); another alarm rings already"), at: 0)
            return actions + setPolling(true)
        }
        let (firing, steps) = fire(checked.settings, scheduledAt: now, now: now, test: checked.isTest)
        let fired = firing.ringingAfterWakeCheck()
        actions.insert(
            .log(
                .warning,
                "wake-up check of alarm \(name) failed: no answer in \(DurationText.format(seconds: checked.wakeCheck!.deadline - checked.wakeCheck!.asksAt)); it rings again (session #\(fired.id))"
            ), at: 0)
        return actions + apply(fired, steps.map { .ring($0) } + fallbackNote(fired), now: now)
    }

    /// The daemon stops: the sound stops, how far occurrences were handled is kept.
    func shutDown() -> [ClockAction] {
        [.stopSound, .persist([], evaluatedThrough: evaluatedThrough)]
    }

    // MARK: Rules

    /// A request that moves the session, with the refusal it may get.
    private mutating func transition(
        now: Int, _ body: (inout RingSession, inout ProblemRandom) throws(RingRefusal) -> [SessionStep]
    ) -> ClockReply {
        guard var active = session, active.state.isActive else {
            return ClockReply(result: .failure(RingRefusal("nothing is ringing")), actions: [])
        }
        var generator = random
        do {
            let steps = try body(&active, &generator)
            random = generator
            let actions = apply(active, steps, now: now) + wake(now: now)
            // A dismissal that planned a wake-up check says so in its reply.
            let after = wakeCheck?.id == active.id ? wakeCheck! : active
            return ClockReply(result: .success(after), actions: actions)
        } catch {
            return ClockReply(result: .failure(error), actions: [])
        }
    }

    /// A session's own deadlines: a snooze ends, the sound comes back up, or it rang too long.
    private mutating func advanceSession(now: Int) -> [ClockAction] {
        guard var active = session else { return [] }
        let steps = active.tick(now: now)
        guard !steps.isEmpty else { return [] }
        var notes: [SessionStep] = []
        if steps.contains(.startAudio) {
            notes.append(.log(.notice, "alarm \(active.settings.name) rings again after a snooze"))
        }
        if active.state == .autoStopped {
            notes.append(
                .log(
                    .warning,
                    "alarm \(active.settings.name) rang \(limits.ring.maxRingSeconds / 60) min unanswered; stopped (unattended)"
                ))
        }
        return apply(active, notes + steps.map { .ring($0) }, now: now)
    }

    /// Keeps the session after a transition and turns its steps into actions: the sound first,
    /// then the state written, hooks, and what watchers are told.
    private mutating func apply(_ active: RingSession, _ steps: [SessionStep], now: Int) -> [ClockAction] {
        let before = session
        var active = active
        session = active.state.isActive ? active : nil
        var sound: [ClockAction] = []
        var rest: [ClockAction] = []
        if active.planWakeCheck(now: now, waitSeconds: limits.ring.wakeCheckWaitSeconds) {
            // A check still open from an earlier session gives way to this one's.
            wakeCheck = active
            let at = ZoneResolver(zone: zone).local(at: active.wakeCheck!.asksAt).time
            rest.append(
                .log(
                    .notice,
                    "wake-up check of alarm \(active.settings.name) at \(at.description) (\(DurationText.format(seconds: active.settings.wakeCheckSeconds)) after the dismissal)"
                ))
        }
        for step in steps {
            switch step {
            case .log(let level, let text): rest.append(.log(level, text))
            case .ring(.startAudio):
                sound.append(.play(active.settings))
                if tagOnReader {
                    rest.append(
                        .log(.notice, "a tag is on the reader: lift it, then tap it (alarm \(active.settings.name))"))
                }
            case .ring(.stopAudio): sound.append(.stopSound)
            case .ring(.attenuate): sound.append(.attenuate(true))
            case .ring(.restoreVolume): sound.append(.attenuate(false))
            case .ring(.escalate): sound.append(.escalate)
            case .ring(.runHook(let event)): rest.append(.runHook(event, active))
            case .ring(.disableAlarm(let id)): rest += disable(id)
            }
        }
        rest.insert(.persist([active], evaluatedThrough: nil), at: 0)
        rest += setPolling(wantsReader)
        // Watchers hear of transitions, not of every answer typed.
        // Escalation too: an open page shows "full volume" as it happens.
        if before?.id != active.id || before?.state != active.state || before?.challenge != active.challenge
            || before?.escalated != active.escalated
        {
            rest.append(.publish(.session(active)))
        }
        // Chimes that waited for the alarm play once it is quiet (snoozed or over).
        return sound + rest + chimes.playWaiting(now: now, ringing: session, zone: zone)
    }

    /// Rings what came due since the last look, by the missed-alarm rule.
    ///
    /// A clock that reads before `evaluatedThrough` is one of two things. A Raspberry Pi without a
    /// real-time clock boots with an old time until network time sync: nothing before `through` may
    /// ring twice, so the machine waits for the clock to catch up. Or the clock was ahead (a bad RTC,
    /// a wrong fake-hwclock file) and has been put right: then `through` is a wrong instant and
    /// waiting would silence the clock for as long as it was wrong. The two are told apart by trust:
    /// when the kernel says the clock is synchronized, or the clock was set back while the daemon
    /// watched, the wait ends (`recoverFromWrongClock`).
    private mutating func catchUp(now: Double, clockTrusted: Bool = false, stepSeen: Bool = false) -> [ClockAction] {
        let seconds = Int(now.rounded(.down))
        guard let through = evaluatedThrough else {
            // The first start ever: nothing before now can have been missed.
            evaluatedThrough = seconds
            return [.persist([], evaluatedThrough: seconds)]
        }
        guard seconds >= through else {
            if clockTrusted { return recoverFromWrongClock(now: now, wrongThrough: through, stepSeen: stepSeen) }
            waitingForClock = through
            guard !warnedClockBehind else { return [] }
            warnedClockBehind = true
            return [
                .log(
                    .warning,
                    "the clock reads \(DurationText.format(seconds: through - seconds)) earlier than the last handled instant; nothing rings until it is synchronized (time sync) or reaches that instant"
                )
            ]
        }
        waitingForClock = nil
        warnedClockBehind = false
        guard seconds > through else { return [] }
        if case .some(let next) = nextRing, next.map({ seconds < $0 }) ?? true {
            evaluatedThrough = seconds  // nothing can have come due
            return []
        }
        nextRing = nil
        var engine = ScheduleEngine(state: schedule, zone: zone)
        let due = engine.rings(after: max(through, seconds - limits.lookBackSeconds), through: seconds).filter {
            !handled.contains(Occurrence(alarmID: $0.alarmID, instant: $0.ringInstant!))
        }
        evaluatedThrough = seconds
        handled = handled.filter { $0.instant > seconds - limits.lookBackSeconds }
        untrustedHandled = untrustedHandled.filter { $0.instant > seconds - limits.lookBackSeconds }
        untrustedMissed = untrustedMissed.filter { $0.key.instant > seconds - limits.lookBackSeconds }
        guard !due.isEmpty else { return [] }
        return AlarmClock.oneTransaction(ringDue(due, now: now))
    }

    /// The clock is right and reads before `wrongThrough`, an instant handled under a clock that
    /// was ahead. What was judged for the future under that clock is forgotten (it comes due again
    /// in its time); what fell between the jump (if the daemon saw it, else a week back) and now is
    /// caught up by the missed-alarm rule, the missed ones recorded as passed while the clock was
    /// wrong.
    ///
    /// A step back the machine saw while running, with no jump ahead before it (the clock was
    /// trusted): the clock's own error. Everything up to `wrongThrough` was judged under a right
    /// clock, so nothing is caught up again: the look goes on from now.
    private mutating func recoverFromWrongClock(now: Double, wrongThrough: Int, stepSeen: Bool = false)
        -> [ClockAction]
    {
        let seconds = Int(now.rounded(.down))
        let from =
            stepSeen && lastJumpFrom == nil
            ? seconds : max(seconds - limits.lookBackSeconds, min(lastJumpFrom ?? .min, seconds))
        // What was judged under a trusted clock stays judged: the step back was the clock's error.
        // What was judged under the wrong clock comes due again in its time.
        handled = handled.filter { $0.instant <= seconds || !untrustedHandled.contains($0) }
        untrustedHandled = untrustedHandled.filter { $0.instant <= seconds }
        // A missed record of an occurrence still to come goes: it rings in its time, and is
        // recorded then (not missed and then dismissed, twice in the history).
        let withdrawn = untrustedMissed.filter { $0.key.instant > seconds }
        untrustedMissed = untrustedMissed.filter { $0.key.instant <= seconds }
        chimes.rewind(now: seconds, from: from, forgetHandled: lastJumpFrom != nil)
        evaluatedThrough = from
        waitingForClock = nil
        warnedClockBehind = false
        nextRing = nil
        lastJumpFrom = nil
        let local = ZoneResolver(zone: zone).local(at: wrongThrough)
        var actions: [ClockAction] = [
            .log(
                .notice,
                "the clock is right again and reads \(DurationText.format(seconds: wrongThrough - seconds)) before \(local.date) \(local.time.hoursAndMinutes), an instant handled while it was wrong; catching up from there"
            ),
            .persist([], evaluatedThrough: from),
        ]
        if !withdrawn.isEmpty {
            let resolver = ZoneResolver(zone: zone)
            let which = withdrawn.keys.sorted { ($0.instant, $0.alarmID) < ($1.instant, $1.alarmID) }.map {
                let at = resolver.local(at: $0.instant)
                return "alarm #\($0.alarmID) at \(at.date) \(at.time.hoursAndMinutes)"
            }
            actions += [
                .withdrawMissed(withdrawn.values.sorted()),
                .log(
                    .notice,
                    "withdrawn from the history, recorded as missed while the clock was wrong and still to come: \(which.joined(separator: ", "))"
                ),
            ]
        }
        catchUpReason = "passed while the clock was wrong"
        actions += catchUp(now: now)
        catchUpReason = nil
        if evaluatedThrough == from {
            evaluatedThrough = seconds
            actions.append(.persist([], evaluatedThrough: seconds))
        }
        return actions
    }

    private mutating func ringDue(_ due: [Decision], now: Double) -> [ClockAction] {
        let seconds = Int(now.rounded(.down))
        let alarms = Dictionary(uniqueKeysWithValues: (schedule.alarms + [schedule.household]).map { ($0.id, $0) })
        let (toRing, joining, missedDecisions) = MissedAlarms.sort(
            due, now: seconds, graceSeconds: limits.graceSeconds)
        var records: [RingSession] = []
        var actions: [ClockAction] = []
        var after: [ClockAction] = []
        for decision in missedDecisions {
            guard let alarm = alarms[decision.alarmID] else { continue }
            let record = RingSession.missed(
                settings: RingSettings(alarm), scheduledAt: decision.ringInstant!, now: seconds
            ).numbered(takeID())
            records.append(record)
            markHandled(Occurrence(alarmID: alarm.id, instant: record.scheduledAt))
            if !clockTrusted { untrustedMissed[Occurrence(alarmID: alarm.id, instant: record.scheduledAt)] = record.id }
            let local = ZoneResolver(zone: zone).local(at: record.scheduledAt).time.hoursAndMinutes
            actions.append(
                .log(
                    .warning,
                    "alarm \(alarm.name) was due at \(local); recorded as missed (\(catchUpReason ?? "over \(limits.graceSeconds / 60) min ago"))"
                ))
            after.append(.runHook(.missed, record))
            after.append(.publish(.missed(record)))
        }
        if let decision = toRing, let alarm = alarms[decision.alarmID] {
            let scheduledAt = decision.ringInstant!
            markHandled(Occurrence(alarmID: alarm.id, instant: scheduledAt))
            if var test = session, test.isTest {
                // A test lends nothing to a real alarm: it ends, and the alarm rings as itself.
                let steps = test.endTest(now: seconds)
                actions.append(
                    .log(
                        .notice,
                        "the test of alarm \(test.settings.name) ends: alarm \(alarm.name) is due and rings as itself"))
                actions += apply(test, steps.map { .ring($0) }, now: seconds)
            }
            if var active = session {
                // One session at a time: a second alarm wakes a snoozed one, or joins a ringing one,
                // and the session takes the stricter of the two in every setting.
                let was = active.state
                let asked = active.howToDismiss
                let steps = active.join(
                    RingSettings(alarm), readerHealthy: readerHealth.isHealthy, readerLostAt: readerLostAt,
                    readerState: readerHealth.stateWords, now: seconds)
                actions.append(
                    .log(
                        .notice,
                        "alarm \(alarm.name) is due while \(active.settings.name) is \(was.rawValue); it rings as that session"
                            + (asked == active.howToDismiss
                                ? "" : ", which now asks: \(active.howToDismiss) (the stricter of the two)")
                    ))
                if case .once = alarm.repeats { after += disable(alarm.id) }
                actions += apply(active, steps.map { .ring($0) }, now: seconds)
            } else {
                let (fired, steps) = fire(RingSettings(alarm), scheduledAt: scheduledAt, now: seconds)
                let late = (now - Double(scheduledAt)) * 1000
                let local = ZoneResolver(zone: zone).local(at: scheduledAt).time.hoursAndMinutes
                let notes: [SessionStep] =
                    [
                        .log(
                            .notice,
                            "alarm \(alarm.name) rings (due \(local), started \(NumberText.fixed(late, 1, signed: true)) ms)"
                        )
                    ] + fallbackNote(fired)
                actions += apply(fired, steps.map { .ring($0) } + notes, now: seconds)
            }
        }
        // Alarms due at the very same instant ring as that one session, and say so.
        for decision in joining {
            guard var active = session, let alarm = alarms[decision.alarmID] else { continue }
            markHandled(Occurrence(alarmID: alarm.id, instant: decision.ringInstant!))
            let asked = active.howToDismiss
            let steps = active.join(
                RingSettings(alarm), readerHealthy: readerHealth.isHealthy, readerLostAt: readerLostAt,
                readerState: readerHealth.stateWords, now: seconds)
            actions.append(
                .log(
                    .notice,
                    "alarm \(alarm.name) is due with \(active.settings.name); it rings as that session"
                        + (asked == active.howToDismiss
                            ? "" : ", which now asks: \(active.howToDismiss) (the stricter of the two)")
                ))
            if case .once = alarm.repeats { after += disable(alarm.id) }
            actions += apply(active, steps.map { .ring($0) }, now: seconds)
        }
        // The missed records and how far occurrences are handled go to disk together (one transaction).
        return actions + [.persist(records, evaluatedThrough: seconds)] + after
    }

    /// Folds every `.persist` of `actions` into one, where the first one stood: the sessions and how
    /// far occurrences are handled reach the disk together, so that after a power cut either both
    /// are there or neither.
    static func oneTransaction(_ actions: [ClockAction]) -> [ClockAction] {
        var sessions: [RingSession] = []
        var through: Int?
        var position: Int?
        var rest: [ClockAction] = []
        for action in actions {
            guard case .persist(let some, let instant) = action else {
                rest.append(action)
                continue
            }
            position = position ?? rest.count
            for session in some {
                if let index = sessions.firstIndex(where: { $0.id == session.id }) {
                    sessions[index] = session
                } else {
                    sessions.append(session)
                }
            }
            through = instant ?? through
        }
        if let position { rest.insert(.persist(sessions, evaluatedThrough: through), at: position) }
        return rest
    }

    /// A new session for `settings`, numbered, with the reader as the machine knows it (math in
    /// a tag's place when none works).
    private mutating func fire(_ settings: RingSettings, scheduledAt: Int, now: Int, test: Bool = false)
        -> (RingSession, [RingAction])
    {
        let (fired, steps) = RingSession.fire(
            settings: settings, scheduledAt: scheduledAt, now: now, readerHealthy: readerHealth.isHealthy,
            policy: limits.ring, test: test, readerLostAt: readerLostAt, readerState: readerHealth.stateWords)
        return (fired.numbered(takeID()), steps)
    }

    /// The log line of a session that fired asking for math because no reader worked, if it did.
    private func fallbackNote(_ fired: RingSession) -> [SessionStep] {
        guard fired.fellBackToMath else { return [] }
        let since = fired.readerLostAt.map {
            " (it stopped working \(DurationText.format(seconds: max(0, fired.startedAt - $0))) before the ring)"
        }
        return [
            .log(
                .warning,
                "alarm \(fired.settings.name) wants an NFC tag but the reader is \(readerHealth)\(since ?? ""); offering math instead: \(fired.problemsLeft) hard problems"
            )
        ]
    }

    /// A one-shot alarm has rung (or joined a ring): it is off from now on.
    private mutating func disable(_ id: Int) -> [ClockAction] {
        guard let index = schedule.alarms.firstIndex(where: { $0.id == id }), schedule.alarms[index].enabled else {
            return []
        }
        schedule.alarms[index].enabled = false
        return [.disableAlarm(id: id)]
    }

    private mutating func setPolling(_ wanted: Bool) -> [ClockAction] {
        guard wanted != polling, readerHealth != .notConfigured else { return [] }
        polling = wanted
        if !wanted { tagOnReader = false }
        return [.pollReader(wanted)]
    }

    /// An occurrence rung, joined, dismissed early or recorded as missed: never handled again,
    /// unless it was judged under an untrusted clock that is then corrected.
    private mutating func markHandled(_ occurrence: Occurrence) {
        handled.insert(occurrence)
        if !clockTrusted { untrustedHandled.insert(occurrence) }
    }

    private mutating func takeID() -> Int {
        defer { nextSessionID += 1 }
        return nextSessionID
    }

    /// When to look next: a session's deadline, the next ring, or the longest sleep.
    private mutating func wake(now: Int) -> [ClockAction] {
        if nextRing == nil {
            nextRingDecision = nextUnhandledRing(after: max(now, evaluatedThrough ?? now))
            nextRing = .some(nextRingDecision?.ringInstant)
        }
        let nextChime = chimes.nextWake(now: now, schedule: schedule, zone: zone)
        let (sunriseActions, nextSunrise) = followSunrise(now: now)
        var actions: [ClockAction] = sunriseActions
        if publishedNextRing != nextRing, let next = nextRing {
            publishedNextRing = nextRing
            actions.append(.publish(.nextRing(next)))
        }
        let candidates: [Int?] = [
            session?.nextDeadline, wakeCheck?.nextDeadline, nextSunrise, tagUnlocks.values.min(), nextRing ?? nil,
            nextChime,
            now + limits.longestSleepSeconds,
            waitingForClock.map { _ in now + AlarmClock.clockCheckSeconds },
        ]
        return actions + [.wake(at: candidates.compactMap { $0 }.min()!)]
    }

    // MARK: Read models

    /// The first ring after `instant` not handled already (rung, joined, dismissed early, missed):
    /// of every alarm, or of `alarmID` alone; in the schedule the machine holds, or in `proposed`
    /// (the store's, just after a request changed it). The wake timer, `status`, `alarm list` and
    /// `alarm show` all read it, so none of them shows a ring that will not come.
    public func nextUnhandledRing(after instant: Int, of alarmID: Int? = nil, in proposed: ScheduleState? = nil)
        -> Decision?
    {
        var state = proposed ?? schedule
        if let alarmID { state.alarms = state.alarms.filter { $0.id == alarmID } }
        var engine = ScheduleEngine(state: state, zone: zone)
        var after = instant
        while let found = engine.nextRing(after: after, of: alarmID), let ring = found.ringInstant {
            guard handled.contains(Occurrence(alarmID: found.alarmID, instant: ring)) else { return found }
            // Every alarm due at that instant, lowest id first: one dismissed early leaves the others.
            let due = engine.rings(after: ring - 1, through: ring).filter { alarmID == nil || $0.alarmID == alarmID }
            if let first = due.first(where: { !handled.contains(Occurrence(alarmID: $0.alarmID, instant: ring)) }) {
                return first
            }
            after = ring
        }
        return nil
    }

    /// The days ahead (`ScheduleEngine.forEachDecisionAhead`) in the schedule the machine holds
    /// or in `proposed`, each decision with whether its ring is already handled (dismissed early):
    /// `next`, the week and the month view read it.
    @discardableResult
    public func forEachDecisionAhead(
        in proposed: ScheduleState? = nil, from now: Int, days: Int, _ body: (Decision, _ handled: Bool) -> Void
    ) -> Bool {
        var engine = ScheduleEngine(state: proposed ?? schedule, zone: zone)
        // The closure takes the handled set alone: reading it through `self` copied the whole
        // machine for each decision (a year of 200 alarms is 73,000), a quarter of `next`'s time.
        let handled = handled
        return engine.forEachDecisionAhead(from: now, days: days) { decision in
            body(
                decision,
                decision.ringInstant.map { handled.contains(Occurrence(alarmID: decision.alarmID, instant: $0)) }
                    ?? false)
        }
    }

    /// A session rings and no device plays it: said loudly in `status`.
    public var isRingingSilently: Bool { soundSilent && session?.state == .ringing }

    /// Whether `dismiss --next` would act on the next ring now (no session; the ring within
    /// `earlyDismissSeconds`): `status` offers it then.
    public func earlyDismissalOpen(now: Int) -> Bool {
        guard session == nil, let ring = nextRingDecision?.ringInstant else { return false }
        return isInEarlyWindow(ring, now: now)
    }

    private func isInEarlyWindow(_ ring: Int, now: Int) -> Bool { ring - now <= limits.earlyDismissSeconds }

    /// The sunrise of the next ring, when its alarm has `--lead`: it begins `leadSeconds` before
    /// the ring (in seconds, not local time: the same length across a DST change), is announced
    /// once, and ends when the ring comes or the ring moves. Returns when the next one begins.
    private mutating func followSunrise(now: Int) -> ([ClockAction], Int?) {
        var upcoming: Sunrise?
        if let decision = nextRingDecision, let ring = decision.ringInstant, ring > now,
            let alarm = schedule.alarm(decision.alarmID), alarm.leadSeconds > 0
        {
            upcoming = Sunrise(
                alarmID: alarm.id, label: alarm.label, startsAt: ring - alarm.leadSeconds, ringsAt: ring,
                soundAt: alarm.leadSound ? ring - min(Sunrise.soundSeconds, alarm.leadSeconds) : nil)
        }
        var actions: [ClockAction] = []
        if let current = sunrise, current != upcoming {
            sunrise = nil
            actions.append(.publish(.sunrise(nil)))
        }
        // A lead sound whose ring moved, went, or was dismissed early stops; one whose ring came
        // gave way to it.
        if let playing = leadSoundFor, upcoming.map({ Occurrence(alarmID: $0.alarmID, instant: $0.ringsAt) }) != playing
        {
            leadSoundFor = nil
            if session == nil { actions.append(.stopSound) }
        }
        guard let upcoming else { return (actions, nil) }
        let occurrence = Occurrence(alarmID: upcoming.alarmID, instant: upcoming.ringsAt)
        if let soundAt = upcoming.soundAt, soundAt <= now, leadSoundFor != occurrence, session == nil,
            let alarm = schedule.alarm(upcoming.alarmID)
        {
            leadSoundFor = occurrence
            actions += [
                .log(.info, "sunrise: the sound of alarm \(alarm.name) begins quietly"),
                .leadSound(RingSettings(alarm)),
            ]
        }
        let nextSound = upcoming.soundAt.flatMap { $0 > now ? $0 : nil }
        guard upcoming.startsAt <= now else { return (actions, upcoming.startsAt) }
        if sunrise == nil, lastSunrise != occurrence {
            sunrise = upcoming
            lastSunrise = occurrence
            let local = ZoneResolver(zone: zone).local(at: upcoming.ringsAt).time.hoursAndMinutes
            let name = upcoming.label.isEmpty ? "#\(upcoming.alarmID)" : "#\(upcoming.alarmID) \(upcoming.label)"
            actions += [
                .log(
                    .notice,
                    "sunrise for alarm \(name) begins: it rings at \(local), in \(DurationText.format(seconds: upcoming.ringsAt - now))"
                ),
                .lead(upcoming), .publish(.sunrise(upcoming)),
            ]
        }
        return (actions, nextSound)
    }

    private static func signed(_ seconds: Double) -> String {
        (seconds >= 0 ? "+" : "-") + DurationText.format(seconds: Int(abs(seconds).rounded()))
    }
}
