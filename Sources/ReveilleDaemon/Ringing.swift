import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol

/// Firing alarms and running their sessions: what the scheduler's ticks and the sleeper's
/// requests do. Everything here runs under the controller's lock.
extension Controller {
    /// After a (re)start: a session that was ringing rings again at once; a snoozed one keeps its
    /// deadline and count (SPEC §3).
    public func resume() throws {
        try lock.withLock { state in
            state.evaluatedThrough = try store.evaluatedThrough()
            guard let session = try store.activeSession() else { return }
            state.session = session
            if session.state == .ringing {
                logger.notice("session #\(session.id) of alarm \(session.settings.name) was ringing; ringing again")
                play(session)
            } else {
                logger.notice(
                    "session #\(session.id) of alarm \(session.settings.name) is snoozed (\(session.snoozeCount) used)")
            }
        }
    }

    /// Before exit: remember how far occurrences were handled, stop the sound and running hooks.
    public func shutDown() {
        lock.withLock { state in
            if let through = state.evaluatedThrough { try? store.setEvaluatedThrough(through) }
        }
        ring.audio.stop()
        hooks.stopAll()
    }

    /// The scheduler woke: end snoozes, ring what is due, record what was missed. Returns the wall
    /// instant (seconds since the epoch) of the next thing to do, if any.
    func tick(_ reason: WakeReason) -> Double? {
        lock.withLock { state in
            let now = clock.now().timeIntervalSince1970
            let monotonic = ContinuousClock.now
            if let last = state.lastTick {
                let elapsed = monotonic - last.monotonic
                let drift =
                    (now - last.wall)
                    - elapsed.inSeconds
                if abs(drift) > 2 || reason == .clockSet {
                    logger.notice("the clock jumped by \(formatJump(drift)); checking what came due")
                }
            }
            state.lastTick = (now, monotonic)
            if refreshZone() { state.nextDue = nil }
            advanceSession(&state, now: Int(now.rounded(.down)))
            catchUp(&state)
            return nextWake(&state, now: now)
        }
    }

    /// Rings what came due since the last look, by the missed-alarm rule.
    func catchUp(_ state: inout RingState) {
        let now = clock.now().timeIntervalSince1970
        let nowSeconds = Int(now.rounded(.down))
        guard let through = state.evaluatedThrough else {
            // The first start ever: nothing before now can have been missed.
            state.evaluatedThrough = nowSeconds
            try? store.setEvaluatedThrough(nowSeconds)
            return
        }
        guard nowSeconds >= through else {
            // A Raspberry Pi without a real-time clock boots with an old time, until network time
            // sync. Nothing before `through` may ring twice: wait for the clock to catch up.
            if !state.warnedClockBehind {
                logger.warning("the clock is behind the last handled instant; waiting for it (time sync?)")
                state.warnedClockBehind = true
            }
            return
        }
        state.warnedClockBehind = false
        guard nowSeconds > through else { return }
        if let next = state.nextDue, nowSeconds < next {
            state.evaluatedThrough = nowSeconds  // nothing can have come due
            return
        }
        state.nextDue = nil
        do {
            try ringDue(after: max(through, nowSeconds - 7 * 86_400), now: now, &state)
        } catch {
            logger.error("could not check for due alarms: \(error)")
        }
    }

    private func ringDue(after start: Int, now: Double, _ state: inout RingState) throws {
        let nowSeconds = Int(now.rounded(.down))
        let schedule = try currentState(today: today())
        var engine = ScheduleEngine(state: schedule, zone: zone)
        let handled = Set(try store.history(since: start).map { "\($0.settings.alarmID)@\($0.scheduledAt)" })
        let due = engine.rings(after: start, through: nowSeconds).filter {
            !handled.contains("\($0.alarmID)@\($0.ringInstant!)")
        }
        state.evaluatedThrough = nowSeconds
        guard !due.isEmpty else { return }
        let alarms = Dictionary(uniqueKeysWithValues: schedule.alarms.map { ($0.id, $0) })
        let (toRing, missed) = MissedAlarms.sort(due, now: nowSeconds, graceSeconds: ring.graceSeconds)
        var records = missed.compactMap { decision in
            alarms[decision.alarmID].map {
                RingSession.missed(settings: RingSettings($0), scheduledAt: decision.ringInstant!, now: nowSeconds)
            }
        }
        for record in records {
            let minutes = ring.graceSeconds / 60
            logger.warning(
                "alarm \(record.settings.name) was due at \(localTime(record.scheduledAt)); recorded as missed (over \(minutes) min ago)"
            )
        }
        var actions: [RingAction] = []
        var disable: [Int] = []
        if let decision = toRing, let alarm = alarms[decision.alarmID] {
            let scheduledAt = decision.ringInstant!
            if var active = state.session {
                // One session at a time: a second alarm wakes a snoozed one, or joins a ringing one.
                // (Its own session would have turned a one-shot off; do that here.)
                if case .once = alarm.repeats { disable.append(alarm.id) }
                let was = active.state
                if active.state == .snoozed {
                    active.snoozedUntil = nowSeconds
                    actions = active.tick(now: nowSeconds)  // [.startAudio], performed below
                }
                logger.notice(
                    "alarm \(alarm.name) is due while \(active.settings.name) is \(was.rawValue); it rings as that session"
                )
                records.append(active)
            } else {
                var (session, fired) = RingSession.fire(
                    settings: RingSettings(alarm), scheduledAt: scheduledAt, now: nowSeconds,
                    readerHealthy: ring.reader.health.isHealthy, policy: ring.policy)
                play(session)  // sound first; then the bookkeeping
                let late = now - Double(scheduledAt)
                logger.notice(
                    "alarm \(alarm.name) rings (due \(localTime(scheduledAt)), started \(String(format: "%+.1f", late * 1000)) ms)"
                )
                if session.fellBackToMath {
                    logger.warning(
                        "alarm \(alarm.name) wants an NFC tag but the reader is \(ring.reader.health); offering math instead"
                    )
                }
                session.id = 0
                fired.removeAll { $0 == .startAudio }
                actions = fired
                records.append(session)
            }
        }
        let stored = try store.record(records, evaluatedThrough: nowSeconds)
        for session in stored where session.state == .missed { hooks.run(.missed, for: session) }
        if let active = stored.last, active.state.isActive {
            state.session = active
            perform(actions, for: active)
        }
        for id in disable { try disableOneShot(id) }
    }

    /// A session's own deadlines: a snooze ends, the sound comes back up, or it rang too long.
    private func advanceSession(_ state: inout RingState, now: Int) {
        guard var session = state.session else { return }
        let actions = session.tick(now: now)
        guard !actions.isEmpty else { return }
        if actions.contains(.startAudio) { logger.notice("alarm \(session.settings.name) rings again after a snooze") }
        if session.state == .autoStopped {
            logger.warning(
                "alarm \(session.settings.name) rang \(ring.policy.maxRingSeconds / 60) min unanswered; stopped (unattended)"
            )
        }
        save(session, &state, actions)
    }

    /// The next wall instant the scheduler must look: a session deadline or the next ring.
    private func nextWake(_ state: inout RingState, now: Double) -> Double? {
        var candidates: [Double] = []
        if let deadline = state.session?.nextDeadline { candidates.append(Double(deadline)) }
        if state.nextDue == nil, let schedule = try? currentState(today: today()) {
            let from = max(Int(now.rounded(.down)), state.evaluatedThrough ?? 0)
            var engine = ScheduleEngine(state: schedule, zone: zone)
            state.nextDue = engine.nextRing(after: from)?.ringInstant
        }
        if let next = state.nextDue { candidates.append(Double(next)) }
        return candidates.min()
    }

    // MARK: The sleeper's requests

    func snooze(_ state: inout RingState) throws -> Response {
        var session = try activeSession(state)
        let actions = try session.snooze(now: nowSeconds())
        save(session, &state, actions)
        let left =
            session.snoozesLeft.map { "\($0) of \(session.settings.maxSnoozes) snoozes left" } ?? "unlimited snoozes"
        logger.info("alarm \(session.settings.name) snoozed (\(session.snoozeCount) used)")
        var response = Response(
            message:
                "snoozed alarm \(session.settings.name) until \(localTime(session.snoozedUntil ?? 0, seconds: true)) (\(left))"
        )
        response.session = info(session)
        return response
    }

    func problem(_ state: inout RingState) throws -> Response {
        var session = try activeSession(state)
        let (problem, actions) = try session.requestProblem(now: nowSeconds(), using: &state.generator)
        save(session, &state, actions)
        var response = Response()
        response.problem = problem.text
        response.session = info(session)
        return response
    }

    func answer(_ value: Int, _ state: inout RingState) throws -> Response {
        var session = try activeSession(state)
        let (correct, actions) = try session.answer(value, now: nowSeconds(), using: &state.generator)
        save(session, &state, actions)
        var response = Response()
        response.correct = correct
        if correct {
            logger.notice("alarm \(session.settings.name) dismissed by math (\(session.wrongAnswers) wrong answers)")
            response.message = "dismissed alarm \(session.settings.name). Good morning."
        } else {
            logger.info("alarm \(session.settings.name): wrong answer \(value)")
            response.problem = session.problem?.text
            response.message = "wrong answer; a new problem: \(session.problem?.text ?? "?")"
        }
        response.session = info(session)
        return response
    }

    private func activeSession(_ state: RingState) throws(RingRefusal) -> RingSession {
        guard let session = state.session, session.state.isActive else { throw RingRefusal("nothing is ringing") }
        return session
    }

    // MARK: Acting on transitions

    /// Keeps a session after a transition: in memory, on disk, then its actions.
    func save(_ session: RingSession, _ state: inout RingState, _ actions: [RingAction]) {
        do {
            try store.update(session)
        } catch {
            logger.error("could not save session #\(session.id): \(error); it goes on in memory")
        }
        state.session = session.state.isActive ? session : nil
        perform(actions, for: session)
    }

    private func perform(_ actions: [RingAction], for session: RingSession) {
        for action in actions {
            switch action {
            case .startAudio: play(session)
            case .stopAudio:
                ring.audio.stop()
                ring.reader.setPolling("ring", false)
            case .attenuate: ring.audio.setAttenuated(true)
            case .restoreVolume: ring.audio.setAttenuated(false)
            case .runHook(let event): hooks.run(event, for: session)
            case .disableAlarm(let id): try? disableOneShot(id)
            }
        }
    }

    private func play(_ session: RingSession) {
        ring.reader.setPolling("ring", true)
        ring.audio.play(
            AudioRequest(
                sound: session.settings.sound, volume: session.settings.volume,
                fadeInSeconds: session.settings.fadeInSeconds))
    }

    private func disableOneShot(_ id: Int) throws {
        guard var alarm = try store.alarm(id: id), alarm.enabled else { return }
        alarm.enabled = false
        _ = try store.update(alarm)
        logger.info("one-shot alarm \(alarm.name) has rung; it is now disabled")
    }

    // MARK: Reporting

    func info(_ session: RingSession) -> SessionInfo {
        SessionInfo(
            id: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
            state: session.state.rawValue, scheduledTime: localTime(session.scheduledAt),
            snoozeCount: session.snoozeCount, maxSnoozes: session.settings.maxSnoozes,
            snoozedUntil: session.snoozedUntil.map { localTime($0, seconds: true) },
            challenge: session.challenge.rawValue, fellBackToMath: session.fellBackToMath,
            howToDismiss: session.howToDismiss, wrongAnswers: session.wrongAnswers)
    }

    func history(days: Int) throws -> [HistoryEntry] {
        guard (1...3660).contains(days) else { throw InputError("--days \(days): must be 1-3660") }
        let since = nowSeconds() - days * 86_400
        let resolver = ZoneResolver(zone: zone)
        return try store.history(since: since).map { session in
            let scheduled = resolver.local(at: session.scheduledAt)
            let wasMissed = session.state == .missed
            return HistoryEntry(
                id: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
                scheduled: "\(scheduled.date) \(localTime(session.scheduledAt))",
                started: wasMissed ? nil : localTime(session.startedAt, seconds: true), state: session.state.rawValue,
                snoozes: session.snoozeCount, wrongAnswers: session.wrongAnswers,
                ended: session.endedAt.map { localTime($0, seconds: true) }, dismissedBy: session.dismissedBy?.rawValue,
                secondsToDismiss: session.state == .dismissed ? session.endedAt.map { $0 - session.startedAt } : nil)
        }
    }

    func stats(days: Int) throws -> StatsInfo {
        let entries = try history(days: days)
        let rang = entries.filter { $0.state != SessionState.missed.rawValue }
        let dismissed = entries.compactMap(\.secondsToDismiss)
        func average(_ values: [Int]) -> Double? {
            values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
        }
        return StatsInfo(
            days: days, sessions: rang.count, dismissed: dismissed.count,
            autoStopped: entries.filter { $0.state == SessionState.autoStopped.rawValue }.count,
            missed: entries.count - rang.count, averageSnoozes: average(rang.map(\.snoozes)),
            averageSecondsToDismiss: average(dismissed), wrongAnswers: rang.reduce(0) { $0 + $1.wrongAnswers })
    }

    func nowSeconds() -> Int { Int(clock.now().timeIntervalSince1970.rounded(.down)) }

    /// `06:45` (or `06:45:12`) on the wall clock.
    func localTime(_ instant: Int, seconds: Bool = false) -> String {
        let time = ZoneResolver(zone: zone).local(at: instant).time
        return seconds ? time.withSeconds : time.hoursAndMinutes
    }

    private func formatJump(_ seconds: Double) -> String {
        (seconds >= 0 ? "+" : "-") + DurationText.format(seconds: Int(abs(seconds).rounded()))
    }
}
