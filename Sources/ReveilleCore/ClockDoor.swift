/// Everything that can happen to the clock machine, as one value: its own life (a start, a look
/// at the time, a new schedule or zone, the end), what the sleeper asks from any client (the CLI,
/// the page, Home Assistant) or a bedside key, and what its devices and helpers report. Each
/// reaches the machine through its one door, `AlarmClock.handle(_:at:)`, with the reading of the
/// clocks it happened at.
public enum ClockEvent: Sendable {
    // MARK: The machine's life

    /// The daemon started (`AlarmClock.start`).
    case start(clockSynchronized: Bool)
    /// Time to look, or the system clock was set (`AlarmClock.tick`).
    case tick(clockWasSet: Bool, clockSynchronized: Bool)
    /// The store's schedule changed (`AlarmClock.scheduleChanged`).
    case scheduleChanged(ScheduleState, clockSynchronized: Bool)
    /// The zone alarm times are read in changed.
    case zoneChanged(Zone)
    /// The daemon stops.
    case shutDown

    // MARK: The sleeper, from a client

    case snooze
    /// The math problem, asked for (or kept in view while digits are typed).
    case problem
    case answer(Int)
    /// "Are you up?" answered; `by` names how, for the log and the history.
    case awake(by: String)
    /// `alarm test`: the alarm rings now as a test.
    case test(alarmID: Int)
    /// `unlock`: the alarm's challenge, or that it is unlocked already.
    case unlock(alarmID: Int)
    /// An answer to the unlock problem.
    case unlockAnswer(alarmID: Int, value: Int)
    /// `dismiss --next`.
    case dismissNextEarly

    // MARK: The bedside keys (what they do is said aloud too)

    case snoozeKey
    case problemKey
    case answerKey(Int)
    /// A key while nothing rings: the time and the next ring, aloud.
    case timeAndNext

    // MARK: Devices and helpers

    case tagPlaced(uid: String, label: String?, fresh: Bool)
    case tagLifted
    case readerHealth(ReaderHealth)
    /// No sound device plays (or one does again).
    case soundSilent(Bool)
    /// A chime's `--unless` command finished.
    case chimeChecked(key: String, skip: Bool, detail: String)
    /// The app guard says an app's time runs out.
    case appTimeRunningOut(app: String, user: String, secondsLeft: Int)
}

/// What the machine answers an event with, beside the actions it asks for.
public enum ClockAnswer: Sendable {
    /// An event that answers nothing (a look at the time, a tap, a device's report).
    case none
    /// A request that moves the ring (snooze, problem, answer, awake, test, and their keys): the
    /// session after it, or why not. `answered`: for an answer, how it went.
    case ring(Result<RingSession, RingRefusal>, answered: AnswerOutcome?)
    /// `unlock` and its answer.
    case unlock(Result<UnlockState, RingRefusal>)
    /// `dismiss --next`: the history's record, or why not.
    case early(Result<RingSession, AlarmClock.EarlyRefusal>)

    /// The ring's result, for an event that moves the ring; a refusal for any other answer.
    public var ring: Result<RingSession, RingRefusal> {
        if case .ring(let result, _) = self { return result }
        return .failure(RingRefusal("not a request that moves the ring"))
    }
}

/// Where unlocking an alarm stands after `unlock` or its answer.
public enum UnlockState: Sendable, Equatable {
    /// Its challenge is asked (its problem, its tag, or either).
    case asks(AlarmClock.UnlockAsk)
    /// The answer was wrong: a new problem.
    case wrong(next: MathProblem)
    /// Its challenge was passed: changes that weaken its next ring are allowed until `until`.
    case unlocked(until: Int)
}

extension AlarmClock {
    /// The machine's one door: every event, from every edge (the socket's requests, the keys, the
    /// reader, the sound, the timers), comes in here with the one reading of the clocks it is
    /// judged at, and goes out as an answer and the actions to carry out. The edge decides nothing
    /// the machine's state could change.
    public mutating func handle(_ event: ClockEvent, at instant: Instant) -> (ClockAnswer, [ClockAction]) {
        let now = instant.second
        switch event {
        case .start(let synchronized):
            return (.none, start(at: instant, clockSynchronized: synchronized))
        case .tick(let clockWasSet, let synchronized):
            return (.none, tick(at: instant, clockWasSet: clockWasSet, clockSynchronized: synchronized))
        case .scheduleChanged(let state, let synchronized):
            return (.none, scheduleChanged(state, at: instant, clockSynchronized: synchronized))
        case .zoneChanged(let zone): return (.none, zoneChanged(to: zone, now: now))
        case .shutDown: return (.none, shutDown())

        case .snooze: return ring(snooze(now: now))
        case .problem: return ring(requestProblem(now: now))
        case .answer(let value): return answered { $0.answer(value, now: now) }
        case .awake(let by): return ring(confirmAwake(now: now, by: by))
        case .test(let alarmID): return ring(test(alarmID, now: now))
        case .unlock(let alarmID):
            if let until = unlocks.openUntil(alarmID, now: now) {
                return (.unlock(.success(.unlocked(until: until))), [])
            }
            let (result, actions) = unlockChallenge(for: alarmID, now: now)
            return (.unlock(result.map { .asks($0) }), actions)
        case .unlockAnswer(let alarmID, let value):
            let (result, actions) = unlockAnswer(for: alarmID, value: value, now: now)
            let state = result.map { next -> UnlockState in
                next.map { .wrong(next: $0) } ?? .unlocked(until: unlocks.openUntil(alarmID, now: now) ?? now)
            }
            return (.unlock(state), actions)
        case .dismissNextEarly:
            let (result, actions) = dismissNextEarly(now: now)
            return (.early(result), actions)

        case .snoozeKey: return ring(snoozeByKey(now: now))
        case .problemKey: return ring(problemByKey(now: now))
        case .answerKey(let value): return answered { $0.answerByKey(value, now: now) }
        case .timeAndNext: return (.none, timeAndNext(now: now))

        case .tagPlaced(let uid, let label, let fresh):
            return (.none, tagPlaced(uid: uid, label: label, fresh: fresh, now: now))
        case .tagLifted: return (.none, tagLifted())
        case .readerHealth(let health): return (.none, readerHealthChanged(health, now: now))
        case .soundSilent(let silent): return (.none, soundChanged(silent: silent, now: now))
        case .chimeChecked(let key, let skip, let detail):
            return (.none, chimeChecked(key: key, skip: skip, detail: detail, now: now))
        case .appTimeRunningOut(let app, let user, let secondsLeft):
            return (.none, appTimeRunningOut(app: app, user: user, secondsLeft: secondsLeft))
        }
    }

    private func ring(_ reply: ClockReply) -> (ClockAnswer, [ClockAction]) {
        (.ring(reply.result, answered: nil), reply.actions)
    }

    /// An answer, with how it went: an answer that counted no wrong one and did not dismiss was
    /// right, with more to go.
    private mutating func answered(_ body: (inout AlarmClock) -> ClockReply) -> (ClockAnswer, [ClockAction]) {
        let wrongBefore = session?.wrongAnswers ?? 0
        let reply = body(&self)
        let outcome = try? reply.result.get().answerOutcome(wrongBefore: wrongBefore)
        return (.ring(reply.result, answered: outcome), reply.actions)
    }
}
