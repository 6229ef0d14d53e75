/// Catching up: what came due since the machine last looked, rung, joined or recorded missed, and
/// a clock that was wrong put right (trust in the clock).
extension AlarmClock {
    /// Rings what came due since the last look, by the missed-alarm rule.
    ///
    /// A clock that reads before `evaluatedThrough` is one of two things. A Raspberry Pi without a
    /// real-time clock boots with an old time until network time sync: nothing before `through` may
    /// ring twice, so the machine waits for the clock to catch up. Or the clock was ahead (a bad RTC,
    /// a wrong fake-hwclock file) and has been put right: then `through` is a wrong instant and
    /// waiting would silence the clock for as long as it was wrong. The two are told apart by trust:
    /// when the kernel says the clock is synchronized, or the clock was set back while the daemon
    /// watched, the wait ends (`recoverFromWrongClock`).
    mutating func catchUp(now: Double, clockTrusted: Bool = false, stepSeen: Bool = false) -> [ClockAction] {
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
        trust.untrustedHandled = trust.untrustedHandled.filter { $0.instant > seconds - limits.lookBackSeconds }
        trust.untrustedMissed = trust.untrustedMissed.filter { $0.key.instant > seconds - limits.lookBackSeconds }
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
    mutating func recoverFromWrongClock(now: Double, wrongThrough: Int, stepSeen: Bool = false)
        -> [ClockAction]
    {
        let seconds = Int(now.rounded(.down))
        let from =
            stepSeen && trust.jumpedFrom == nil
            ? seconds : max(seconds - limits.lookBackSeconds, min(trust.jumpedFrom ?? .min, seconds))
        // What was judged under a trusted clock stays judged: the step back was the clock's error.
        // What was judged under the wrong clock comes due again in its time.
        handled = handled.filter { $0.instant <= seconds || !trust.untrustedHandled.contains($0) }
        trust.untrustedHandled = trust.untrustedHandled.filter { $0.instant <= seconds }
        // A missed record of an occurrence still to come goes: it rings in its time, and is
        // recorded then (not missed and then dismissed, twice in the history).
        let withdrawn = trust.untrustedMissed.filter { $0.key.instant > seconds }
        trust.untrustedMissed = trust.untrustedMissed.filter { $0.key.instant <= seconds }
        chimes.rewind(now: seconds, from: from, forgetHandled: trust.jumpedFrom != nil)
        evaluatedThrough = from
        waitingForClock = nil
        warnedClockBehind = false
        nextRing = nil
        trust.jump = .none
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

    mutating func ringDue(_ due: [Decision], now: Double) -> [ClockAction] {
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
            if !clockTrusted {
                trust.untrustedMissed[Occurrence(alarmID: alarm.id, instant: record.scheduledAt)] = record.id
            }
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
            if let active = session {
                // One session at a time: a second alarm wakes a snoozed one, or joins a ringing one.
                let why = "while \(active.settings.name) is \(active.state.rawValue)"
                actions += join(alarm, into: active, why, now: seconds, after: &after)
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
            guard let active = session, let alarm = alarms[decision.alarmID] else { continue }
            markHandled(Occurrence(alarmID: alarm.id, instant: decision.ringInstant!))
            actions += join(alarm, into: active, "with \(active.settings.name)", now: seconds, after: &after)
        }
        // The missed records and how far occurrences are handled go to disk together (one transaction).
        return actions + [.persist(records, evaluatedThrough: seconds)] + after
    }

    /// `alarm` rings as the session on, which takes the stricter of the two in every setting; `why`
    /// says how it came to join, for the log. A one-shot is turned off after (`after`).
    mutating func join(
        _ alarm: Alarm, into active: RingSession, _ why: String, now: Int, after: inout [ClockAction]
    ) -> [ClockAction] {
        var active = active
        let asked = active.howToDismiss
        let steps = active.join(
            RingSettings(alarm), readerHealthy: readerHealth.isHealthy, readerLostAt: readerLostAt,
            readerState: readerHealth.stateWords, now: now)
        let log = ClockAction.log(
            .notice,
            "alarm \(alarm.name) is due \(why); it rings as that session"
                + (asked == active.howToDismiss
                    ? "" : ", which now asks: \(active.howToDismiss) (the stricter of the two)"))
        if case .once = alarm.repeats { after += disable(alarm.id) }
        return [log] + apply(active, steps.map { .ring($0) }, now: now)
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

    static func signed(_ seconds: Double) -> String {
        (seconds >= 0 ? "+" : "-") + DurationText.format(seconds: Int(abs(seconds).rounded()))
    }
}
