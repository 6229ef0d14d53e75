/// Commitment's challenge before a change that weakens a ring (`Unlocks` holds where each alarm
/// stands), and `dismiss --next`, which spends an unlock.
extension AlarmClock {
    /// What unlocking an alarm asks: its problem, its tag, or either.
    public struct UnlockAsk: Sendable, Equatable {
        public var alarm: Alarm
        /// The problem to answer; nil when only the alarm's tag unlocks it.
        public var problem: MathProblem?
        /// A tap of one of its tags unlocks it too (the reader polls for it).
        public var tag: Bool
    }

    /// Whether `alarmID` was unlocked for changes (its challenge passed) and still is.
    public func isUnlocked(_ alarmID: Int, now: Int) -> Bool { unlocks.openUntil(alarmID, now: now) != nil }

    /// `reveille unlock`: the alarm's own challenge, as its ring would ask it: its problem (the
    /// same one until answered), or its tag (math too when no reader works).
    mutating func unlockChallenge(for alarmID: Int, now: Int) -> (Result<UnlockAsk, RingRefusal>, [ClockAction]) {
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
        // The same problem until it is answered.
        var problem = unlocks.problem(alarmID)
        if alarm.challenge != .nfc, problem == nil { problem = MathProblem.make(alarm.mathDifficulty, using: &random) }
        unlocks.ask(alarmID, problem: problem, tapUntil: tag ? now + Unlocks.tapSeconds : unlocks.tapUntil(alarmID))
        let actions = tag ? setPolling(true) + wake(now: now) : []
        return (
            .success(UnlockAsk(alarm: alarm, problem: alarm.challenge == .nfc ? nil : problem, tag: tag)), actions
        )
    }

    /// An answer to the unlock problem: right, the alarm may be changed for `Commitment.unlockSeconds`;
    /// wrong, a new problem (the result carries it).
    mutating func unlockAnswer(for alarmID: Int, value: Int, now: Int) -> (
        Result<MathProblem?, RingRefusal>, [ClockAction]
    ) {
        guard let problem = unlocks.problem(alarmID), let alarm = schedule.alarm(alarmID)
        else {
            return (
                .failure(
                    RingRefusal("no problem was asked for alarm #\(alarmID): 'reveille unlock \(alarmID)' asks one")),
                []
            )
        }
        guard value == problem.answer else {
            let next = MathProblem.make(alarm.mathDifficulty, using: &random)
            unlocks.ask(alarmID, problem: next, tapUntil: unlocks.tapUntil(alarmID))
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
        let method = unlocks.method(alarm.id) ?? .math
        let record = RingSession.dismissedEarly(
            settings: RingSettings(alarm), scheduledAt: ring, now: now, by: method
        ).numbered(takeID())
        markHandled(Occurrence(alarmID: alarm.id, instant: ring))
        unlocks.close(alarm.id)
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
    mutating func unlock(_ alarm: Alarm, by method: DismissalMethod, tag: String? = nil, now: Int)
        -> [ClockAction]
    {
        unlocks.open(alarm.id, until: now + Commitment.unlockSeconds, by: method)
        let by = tag.map { "tag \"\($0)\"" } ?? method.rawValue
        return [
            .log(
                .notice,
                "alarm \(alarm.name) unlocked by \(by): changes that weaken its next ring are allowed for \(Commitment.unlockSeconds / 60) min"
            )
        ] + setPolling(wantsReader) + wake(now: now)
    }

    /// A registered tag tapped while nothing rings: it unlocks the alarms waiting for it.
    mutating func unlockByTag(_ label: String, now: Int) -> [ClockAction]? {
        let ids = Set(unlocks.waitingForTap(now: now))
        let waiting = schedule.alarms.filter { alarm in
            ids.contains(alarm.id) && (alarm.tags.isEmpty || alarm.tags.contains(label))
        }
        guard !waiting.isEmpty else { return nil }
        return waiting.flatMap { unlock($0, by: .tag, tag: label, now: now) }
    }

    /// Taps waited for too long are no longer waited for; unlocks run out.
    mutating func expireUnlocks(now: Int) -> [ClockAction] {
        unlocks.expire(now: now) ? setPolling(wantsReader) : []
    }
}
