/// The ring session's part of the machine: what the sleeper asks (from a client or a bedside
/// key), what the reader and the sound report, and the rules every session follows (a transition,
/// its deadlines, a new ring fired, the wake timer).
extension AlarmClock {
    // MARK: The sleeper, and the bedside keys

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
                        "alarm \(session.settings.name): right answer; \(session.problemsLeft) more to stop it\(session.fellBackToMath ? " (math stands in for its tag)" : "")"
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

    // MARK: The reader, the sound, the chimes

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

    /// A chime's `--unless` command finished: exit status 0 (`skip`) means it is not needed.
    /// `detail` says how the command ended, for the log.
    mutating func chimeChecked(key: String, skip: Bool, detail: String, now: Int) -> [ClockAction] {
        guard let actions = chimes.checked(key: key, skip: skip, detail: detail, now: now, ringing: session, zone: zone)
        else { return [] }
        return actions + wake(now: now)
    }

    // MARK: Rules

    /// A request that moves the session, with the refusal it may get.
    mutating func transition(
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
    mutating func advanceSession(now: Int) -> [ClockAction] {
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
    mutating func apply(_ active: RingSession, _ steps: [SessionStep], now: Int) -> [ClockAction] {
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

    /// A new session for `settings`, numbered, with the reader as the machine knows it (math in
    /// a tag's place when none works).
    mutating func fire(_ settings: RingSettings, scheduledAt: Int, now: Int, test: Bool = false)
        -> (RingSession, [RingAction])
    {
        let (fired, steps) = RingSession.fire(
            settings: settings, scheduledAt: scheduledAt, now: now, readerHealthy: readerHealth.isHealthy,
            policy: limits.ring, test: test, readerLostAt: readerLostAt, readerState: readerHealth.stateWords)
        return (fired.numbered(takeID()), steps)
    }

    /// The log line of a session that fired asking for math because no reader worked, if it did.
    func fallbackNote(_ fired: RingSession) -> [SessionStep] {
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

    /// A one-shot alarm has rung (or joined a ring): it is off from now on, and what shows its
    /// switch (the page, Home Assistant) hears that the schedule changed.
    mutating func disable(_ id: Int) -> [ClockAction] {
        guard let index = schedule.alarms.firstIndex(where: { $0.id == id }), schedule.alarms[index].enabled else {
            return []
        }
        schedule.alarms[index].enabled = false
        return [.disableAlarm(id: id), .publish(.schedule)]
    }

    mutating func setPolling(_ wanted: Bool) -> [ClockAction] {
        guard wanted != polling, readerHealth != .notConfigured else { return [] }
        polling = wanted
        if !wanted { tagOnReader = false }
        return [.pollReader(wanted)]
    }

    /// An occurrence rung, joined, dismissed early or recorded as missed: never handled again,
    /// unless it was judged under an untrusted clock that is then corrected.
    mutating func markHandled(_ occurrence: Occurrence) {
        handled.insert(occurrence)
        if !clockTrusted { trust.untrustedHandled.insert(occurrence) }
    }

    mutating func takeID() -> Int {
        defer { nextSessionID += 1 }
        return nextSessionID
    }

    /// When to look next: a session's deadline, the next ring, or the longest sleep.
    mutating func wake(now: Int) -> [ClockAction] {
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
            session?.nextDeadline, wakeCheck?.nextDeadline, nextSunrise, unlocks.nextTapDeadline, nextRing ?? nil,
            nextChime,
            now + limits.longestSleepSeconds,
            waitingForClock.map { _ in now + AlarmClock.clockCheckSeconds },
        ]
        return actions + [.wake(at: candidates.compactMap { $0 }.min()!)]
    }
}
