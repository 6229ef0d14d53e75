/// One alarm ringing until the sleeper proves they are awake: a pure state machine. Every
/// method takes `now` (seconds since the epoch) and returns the actions for the edges.
public struct RingSession: Sendable, Hashable {
    /// The history row; 0 until stored.
    public internal(set) var id: Int
    public internal(set) var settings: RingSettings
    /// When the occurrence was due.
    public internal(set) var scheduledAt: Int
    /// When it first rang.
    public internal(set) var startedAt: Int
    public internal(set) var state: SessionState
    public internal(set) var snoozeCount: Int
    public internal(set) var snoozedUntil: Int?
    /// When the current ringing phase began (auto-stop counts from here).
    public internal(set) var ringingSince: Int
    /// What dismisses it now: the alarm's challenge, or math when NFC was asked but no reader was healthy.
    public internal(set) var challenge: Challenge
    public internal(set) var fellBackToMath: Bool
    public internal(set) var problem: MathProblem?
    public internal(set) var wrongAnswers: Int
    public internal(set) var attenuatedUntil: Int?
    public internal(set) var endedAt: Int?
    public internal(set) var dismissedBy: DismissalMethod?
    /// The registered tag that dismissed it.
    public internal(set) var dismissedTag: String?
    /// Alarms that came due while it rang or was snoozed, and rang as this session.
    public internal(set) var joined: [Int]
    /// Rung by `reveille alarm test`, not by the schedule.
    public internal(set) var isTest: Bool
    public internal(set) var maxRingSeconds: Int
    public internal(set) var attenuationSeconds: Int
    /// It rang unanswered for `settings.escalateAfterSeconds`: at full volume until it stops or is snoozed.
    public internal(set) var escalated: Bool
    /// The wake-up check planned at its dismissal (`settings.wakeCheckSeconds`), and how it went.
    public internal(set) var wakeCheck: WakeCheck?
    /// Right answers still needed to dismiss it by math: 1, or `fallbackProblems` when math
    /// stands in for a tag because no reader works.
    public internal(set) var problemsLeft: Int
    /// When math stands in for a tag: when the reader stopped working, if the daemon saw it
    /// (nil: it was not working when the daemon started).
    public internal(set) var readerLostAt: Int?
    /// When math stands in for a tag: the reader's state then (`unplugged`, `absent: ...`).
    public internal(set) var readerState: String?
    /// It rings because its wake-up check went unanswered ("Are you up?"), not at its time.
    public internal(set) var afterWakeCheck: Bool

    /// How many right answers math asks when it stands in for a tag (README, "No reader at the ring").
    public static let fallbackProblems = 3

    /// A session as it was stored (the store's own versioned record, read back).
    public init(
        restoring id: Int, settings: RingSettings, scheduledAt: Int, startedAt: Int, state: SessionState,
        snoozeCount: Int, snoozedUntil: Int?, ringingSince: Int, challenge: Challenge, fellBackToMath: Bool,
        problem: MathProblem?, wrongAnswers: Int, attenuatedUntil: Int?, endedAt: Int?,
        dismissedBy: DismissalMethod?, maxRingSeconds: Int, attenuationSeconds: Int, dismissedTag: String? = nil,
        joined: [Int] = [], isTest: Bool = false, escalated: Bool = false, wakeCheck: WakeCheck? = nil,
        problemsLeft: Int = 1, readerLostAt: Int? = nil, readerState: String? = nil, afterWakeCheck: Bool = false
    ) {
        self.afterWakeCheck = afterWakeCheck
        self.readerState = readerState
        self.problemsLeft = problemsLeft
        self.readerLostAt = readerLostAt
        self.escalated = escalated
        self.wakeCheck = wakeCheck
        self.id = id
        self.settings = settings
        self.scheduledAt = scheduledAt
        self.startedAt = startedAt
        self.state = state
        self.snoozeCount = snoozeCount
        self.snoozedUntil = snoozedUntil
        self.ringingSince = ringingSince
        self.challenge = challenge
        self.fellBackToMath = fellBackToMath
        self.problem = problem
        self.wrongAnswers = wrongAnswers
        self.attenuatedUntil = attenuatedUntil
        self.endedAt = endedAt
        self.dismissedBy = dismissedBy
        self.dismissedTag = dismissedTag
        self.joined = joined
        self.isTest = isTest
        self.maxRingSeconds = maxRingSeconds
        self.attenuationSeconds = attenuationSeconds
    }

    /// The same session under the history row number the clock gave it.
    func numbered(_ id: Int) -> RingSession {
        var copy = self
        copy.id = id
        return copy
    }

    /// Why it rings now, for a screen to say.
    public enum Reason: String, Sendable {
        /// Its time came.
        case time
        /// A snooze ended.
        case snooze
        /// The wake-up check of an earlier session went unanswered.
        case wakeCheck = "wake-check"
    }

    public var reason: Reason { snoozeCount > 0 ? .snooze : afterWakeCheck ? .wakeCheck : .time }

    /// This session rings because the wake-up check of an earlier one went unanswered.
    func ringingAfterWakeCheck() -> RingSession {
        var copy = self
        copy.afterWakeCheck = true
        return copy
    }

    /// The alarm fires: ring now.
    /// - Parameter readerHealthy: whether an NFC reader works right now; without one, an
    ///   NFC-only alarm offers math instead, so no one is left with an alarm they cannot stop.
    ///   That math is harder: the hardest problems, `fallbackProblems` of them.
    /// - Parameter readerLostAt: when the reader stopped working, if known (for the record).
    /// - Parameter test: rung by `reveille alarm test`: recorded as a test, and a one-shot stays on.
    public static func fire(
        settings: RingSettings, scheduledAt: Int, now: Int, readerHealthy: Bool, policy: RingPolicy = RingPolicy(),
        test: Bool = false, readerLostAt: Int? = nil, readerState: String? = nil
    ) -> (RingSession, [RingAction]) {
        let fallback = settings.challenge == .nfc && !readerHealthy
        let session = RingSession(
            restoring: 0, settings: fallback ? settings.forFallback() : settings, scheduledAt: scheduledAt,
            startedAt: now, state: .ringing, snoozeCount: 0,
            snoozedUntil: nil, ringingSince: now, challenge: fallback ? .math : settings.challenge,
            fellBackToMath: fallback, problem: nil, wrongAnswers: 0, attenuatedUntil: nil, endedAt: nil,
            dismissedBy: nil, maxRingSeconds: policy.maxRingSeconds, attenuationSeconds: policy.attenuationSeconds,
            isTest: test, problemsLeft: fallback ? max(fallbackProblems, settings.mathProblems) : settings.mathProblems,
            readerLostAt: fallback ? readerLostAt : nil,
            readerState: fallback ? readerState : nil)
        var actions: [RingAction] = [.startAudio, .runHook(.fire)]
        if settings.isOneShot && !test { actions.append(.disableAlarm(id: settings.alarmID)) }
        return (session, actions)
    }

    /// An occurrence dismissed before it rang (`reveille dismiss --next`): it never rings.
    public static func dismissedEarly(settings: RingSettings, scheduledAt: Int, now: Int, by method: DismissalMethod)
        -> RingSession
    {
        RingSession(
            restoring: 0, settings: settings, scheduledAt: scheduledAt, startedAt: now, state: .dismissed,
            snoozeCount: 0, snoozedUntil: nil, ringingSince: now, challenge: settings.challenge, fellBackToMath: false,
            problem: nil, wrongAnswers: 0, attenuatedUntil: nil, endedAt: now, dismissedBy: method, maxRingSeconds: 0,
            attenuationSeconds: 0)
    }

    /// Dismissed before it was due (`dismissedEarly`).
    public var wasDismissedEarly: Bool { state == .dismissed && (endedAt ?? .max) < scheduledAt }

    /// It rang (it was not recorded as missed).
    public var rang: Bool { state != .missed }

    /// What an answer did, judged from the session after it and its wrong answers before it.
    public func answerOutcome(wrongBefore: Int) -> AnswerOutcome {
        if state == .dismissed { return .dismissed }
        return wrongAnswers == wrongBefore && problem != nil ? .rightWithMoreToGo : .wrong
    }

    /// From the ring to its dismissal by the sleeper (one dismissed early has none).
    public var secondsToDismiss: Int? {
        guard state == .dismissed, !wasDismissedEarly, let endedAt else { return nil }
        return endedAt - startedAt
    }

    /// An occurrence that is recorded as missed, never rung.
    public static func missed(settings: RingSettings, scheduledAt: Int, now: Int) -> RingSession {
        RingSession(
            restoring: 0, settings: settings, scheduledAt: scheduledAt, startedAt: now, state: .missed, snoozeCount: 0,
            snoozedUntil: nil, ringingSince: now, challenge: settings.challenge, fellBackToMath: false, problem: nil,
            wrongAnswers: 0, attenuatedUntil: nil, endedAt: now, dismissedBy: nil, maxRingSeconds: 0,
            attenuationSeconds: 0)
    }

    /// How long before it first rang the reader stopped working, when math stands in for a tag
    /// and the daemon saw the reader go (0 when it went during the ring).
    public var readerLostBeforeRing: Int? { readerLostAt.map { max(0, startedAt - $0) } }

    /// Snoozes left, or nil when unlimited.
    public var snoozesLeft: Int? {
        settings.maxSnoozes == 0 ? nil : max(0, settings.maxSnoozes - snoozeCount)
    }

    /// How to stop it, in words: `answer a math problem: reveille dismiss`.
    public var howToDismiss: String {
        if problemsLeft > 1 {
            let problems =
                "\(problemsLeft) math problems with 'reveille dismiss'"
                + (fellBackToMath ? " (no NFC reader works)" : "")
            return challenge == .math ? "answer \(problems)" : "scan your tag, or answer \(problems)"
        }
        return switch challenge {
        case .math: "answer a math problem with 'reveille dismiss'"
        case .nfc: "scan your tag on the reader"
        case .any: "scan your tag, or answer a math problem with 'reveille dismiss'"
        }
    }

    /// Snooze is free while snoozes remain. The request past the limit is refused.
    public mutating func snooze(now: Int) throws(RingRefusal) -> [RingAction] {
        switch state {
        case .snoozed:
            throw RingRefusal("already snoozed until the alarm rings again; nothing to do")
        case .ringing:
            break
        default:
            throw RingRefusal("nothing is ringing")
        }
        if let left = snoozesLeft, left == 0 {
            throw RingRefusal(
                "no snoozes left (\(snoozeCount) of \(settings.maxSnoozes) used): to stop the alarm, \(howToDismiss)")
        }
        snoozeCount += 1
        state = .snoozed
        snoozedUntil = now + settings.minutes(ofSnooze: snoozeCount) * 60
        attenuatedUntil = nil
        escalated = false
        problem = nil
        return [.stopAudio, .runHook(.snooze)]
    }

    /// The sleeper asks for the problem: the current one, or a new one. The sound drops for a while.
    public mutating func requestProblem(now: Int, using generator: inout some RandomNumberGenerator) throws(RingRefusal)
        -> (MathProblem, [RingAction])
    {
        try requireActive()
        guard challenge != .nfc else {
            throw RingRefusal("this alarm stops only with a registered tag: scan it on the reader")
        }
        let current = problem ?? MathProblem.make(settings.mathDifficulty, using: &generator)
        problem = current
        var actions: [RingAction] = []
        if state == .ringing, attenuatedUntil.map({ now >= $0 }) ?? true {
            attenuatedUntil = now + attenuationSeconds
            actions.append(.attenuate)
        }
        return (current, actions)
    }

    /// An answer to the current problem. Right: dismissed, or, when more problems are asked (the
    /// alarm's `--problems`, or math standing in for a tag), the next one (`correct` true, still
    /// active). Wrong: counted, and a new problem; the right answers so far still count.
    public mutating func answer(_ value: Int, now: Int, using generator: inout some RandomNumberGenerator)
        throws(RingRefusal) -> (correct: Bool, actions: [RingAction])
    {
        try requireActive()
        guard challenge != .nfc else {
            throw RingRefusal("this alarm stops only with a registered tag: scan it on the reader")
        }
        guard let current = problem else {
            throw RingRefusal(
                "no problem was asked yet: run 'reveille dismiss' to get one ('reveille dismiss --problem' in a script)"
            )
        }
        guard value == current.answer else {
            wrongAnswers += 1
            problem = MathProblem.make(settings.mathDifficulty, using: &generator)
            return (false, [])
        }
        guard problemsLeft <= 1 else {
            problemsLeft -= 1
            problem = MathProblem.make(settings.mathDifficulty, using: &generator)
            return (true, [])
        }
        return (true, dismiss(by: .math, now: now))
    }

    /// A registered tag (by label) was scanned.
    public mutating func tag(_ label: String, now: Int) throws(RingRefusal) -> [RingAction] {
        try requireActive()
        guard challenge != .math else {
            throw RingRefusal(
                fellBackToMath
                    ? "no NFC reader was working when this alarm fired, so it asks for math: 'reveille dismiss'"
                    : "this alarm stops with a math problem, not a tag: 'reveille dismiss'")
        }
        guard settings.allowedTags.isEmpty || settings.allowedTags.contains(label) else {
            throw RingRefusal("tag \"\(label)\" does not stop alarm \(settings.name)")
        }
        dismissedTag = label
        return dismiss(by: .tag, now: now)
    }

    /// The NFC reader stopped working during the session: an alarm that only a tag could stop
    /// now takes math too (and still a tag, should the reader come back): the hardest problems,
    /// `fallbackProblems` of them. True when that changed anything.
    public mutating func readerLost(at instant: Int?, state reader: String? = nil) -> Bool {
        guard state.isActive, challenge == .nfc else { return false }
        readerState = reader
        challenge = .any
        fellBackToMath = true
        readerLostAt = instant
        settings = settings.forFallback()
        problemsLeft = max(RingSession.fallbackProblems, settings.mathProblems)
        problem = nil
        return true
    }

    /// Another alarm came due while this one rings or is snoozed: it rings as this one session
    /// (one sound, one challenge), which takes the stricter of the two in every setting
    /// (`RingSettings.strictest`), so that no alarm is easier to stop for having met another. A
    /// tag-only alarm that meets no working reader brings math in its place (`forFallback`). A
    /// snooze ends now.
    public mutating func join(
        _ other: RingSettings, readerHealthy: Bool, readerLostAt: Int?, readerState: String? = nil, now: Int
    ) -> [RingAction] {
        if other.alarmID != settings.alarmID, !joined.contains(other.alarmID) { joined.append(other.alarmID) }
        let fallback = other.challenge == .nfc && !readerHealthy
        let before = settings
        settings = settings.strictest(with: fallback ? other.forFallback() : other)
        let wanted: Challenge = fallback ? .math : other.challenge
        if wanted.strictness > challenge.strictness {
            // A tag-only ring takes no problem: one asked is no more.
            challenge = wanted
            if challenge == .nfc { problem = nil }
        }
        if fallback {
            fellBackToMath = true
            self.readerLostAt = self.readerLostAt ?? readerLostAt
            self.readerState = self.readerState ?? readerState
            problemsLeft = max(problemsLeft, RingSession.fallbackProblems)
        }
        // An alarm that asks more problems asks them of the whole ring.
        problemsLeft = max(problemsLeft, other.mathProblems)
        // A problem shown was made for the easier alarm: the next one asked is of the harder kind.
        if settings.mathDifficulty > before.mathDifficulty { problem = nil }
        guard state == .snoozed else { return [] }
        snoozedUntil = now
        return tick(now: now)
    }

    /// A test that a scheduled alarm interrupts (README, "alarm test"): it ends now, with no
    /// dismissal, so that it lends nothing to the alarm, which rings as itself.
    mutating func endTest(now: Int) -> [RingAction] {
        guard isTest, state.isActive else { return [] }
        state = .autoStopped
        endedAt = now
        problem = nil
        snoozedUntil = nil
        attenuatedUntil = nil
        return [.stopAudio]
    }

    /// Time passed: a snooze ends, the sound comes back up, or the ring has lasted too long.
    public mutating func tick(now: Int) -> [RingAction] {
        var actions: [RingAction] = []
        switch state {
        case .snoozed:
            if let until = snoozedUntil, now >= until {
                state = .ringing
                snoozedUntil = nil
                ringingSince = now
                actions.append(.startAudio)
            }
        case .ringing:
            if maxRingSeconds > 0, now >= ringingSince + maxRingSeconds {
                state = .autoStopped
                endedAt = now
                attenuatedUntil = nil
                problem = nil
                return [.stopAudio, .runHook(.autoStop)]
            }
            if let until = attenuatedUntil, now >= until {
                attenuatedUntil = nil
                actions.append(.restoreVolume)
            }
            if let at = escalatesAt, now >= at {
                escalated = true
                actions.append(.escalate)
            }
        default:
            break
        }
        return actions
    }

    /// The next instant at which `tick` has something to do.
    public var nextDeadline: Int? {
        switch state {
        case .snoozed: snoozedUntil
        case .ringing:
            [attenuatedUntil, escalatesAt, maxRingSeconds > 0 ? ringingSince + maxRingSeconds : nil].compactMap { $0 }
                .min()
        default: wakeCheck?.nextDeadline
        }
    }

    /// When the ring rises to full volume: `escalateAfterSeconds` into this ringing phase, or,
    /// while the sleeper answers (the sound lowered), once that ends. nil: not this session, or done.
    var escalatesAt: Int? {
        guard state == .ringing, !escalated, settings.escalateAfterSeconds > 0 else { return nil }
        return max(ringingSince + settings.escalateAfterSeconds, attenuatedUntil ?? .min)
    }

    private func requireActive() throws(RingRefusal) {
        guard state.isActive else { throw RingRefusal("nothing is ringing") }
    }

    private mutating func dismiss(by method: DismissalMethod, now: Int) -> [RingAction] {
        state = .dismissed
        dismissedBy = method
        endedAt = now
        problem = nil
        snoozedUntil = nil
        attenuatedUntil = nil
        return [.stopAudio, .runHook(.dismiss)]
    }
}
