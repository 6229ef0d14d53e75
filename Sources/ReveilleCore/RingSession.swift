/// Where a ring session is (README, "When an alarm rings"): `ringing` → (`snoozed` → `ringing`)* → `dismissed`, or
/// `auto-stopped` after the longest ring time. `missed` records an occurrence that never rang.
public enum SessionState: String, Codable, Sendable, Hashable {
    case ringing
    case snoozed
    case dismissed
    case autoStopped = "auto-stopped"
    case missed

    /// Still needs the sleeper.
    public var isActive: Bool { self == .ringing || self == .snoozed }
}

/// How a session was dismissed.
public enum DismissalMethod: String, Codable, Sendable, Hashable {
    case math
    case tag
}

/// What the hooks are told happened.
public enum HookEvent: String, Codable, Sendable, Hashable, CaseIterable {
    case fire
    case snooze
    case dismiss
    case missed
    case autoStop = "auto-stop"
    /// The wake-up check asks "Are you up?" (`wake-check`), was answered (`awake`), or was not
    /// (`wake-check-failed`, the alarm then rings again as a new session).
    case wakeCheck = "wake-check"
    case awake
    case wakeCheckFailed = "wake-check-failed"
    /// The sunrise before a ring with `--lead` begins (for a lamp).
    case lead
    /// No sound device plays the ringing alarm (each one failed or stalled).
    case silent
    /// An app's time runs out in a few minutes (README, "App time windows and daily limits"); not a ring event.
    case appWarning = "app-warning"
}

/// What the edges must do after a transition. The core decides; the daemon acts.
public enum RingAction: Hashable, Sendable {
    /// Start (or restart) the alarm sound: fade in from quiet to the alarm's volume.
    case startAudio
    /// Stop the sound now.
    case stopAudio
    /// Lower the sound while the sleeper answers.
    case attenuate
    /// Bring the sound back to the alarm's volume.
    case restoreVolume
    /// It rang unanswered for the alarm's `--escalate-after`: full volume, from now on.
    case escalate
    case runHook(HookEvent)
    /// A one-shot alarm has rung: turn it off.
    case disableAlarm(id: Int)
}

/// The alarm's fields a session needs, copied at fire time (an edit during the ring changes nothing).
public struct RingSettings: Sendable, Hashable {
    public let alarmID: Int
    public let label: String
    public let sound: String?
    public let volume: Int
    public let fadeInSeconds: Int
    public let challenge: Challenge
    public let mathDifficulty: MathDifficulty
    public let allowedTags: [String]
    public let maxSnoozes: Int
    public let snoozeMinutes: Int
    public let isOneShot: Bool
    /// Seconds after the dismissal that the wake-up check asks; 0: none.
    public let wakeCheckSeconds: Int
    /// Seconds of unanswered ringing before full volume; 0: never.
    public let escalateAfterSeconds: Int

    public init(
        alarmID: Int, label: String, sound: String?, volume: Int, fadeInSeconds: Int, challenge: Challenge,
        mathDifficulty: MathDifficulty, allowedTags: [String], maxSnoozes: Int, snoozeMinutes: Int, isOneShot: Bool,
        wakeCheckSeconds: Int = 0, escalateAfterSeconds: Int = 0
    ) {
        self.wakeCheckSeconds = wakeCheckSeconds
        self.escalateAfterSeconds = escalateAfterSeconds
        self.alarmID = alarmID
        self.label = label
        self.sound = sound
        self.volume = volume
        self.fadeInSeconds = fadeInSeconds
        self.challenge = challenge
        self.mathDifficulty = mathDifficulty
        self.allowedTags = allowedTags
        self.maxSnoozes = maxSnoozes
        self.snoozeMinutes = snoozeMinutes
        self.isOneShot = isOneShot
    }

    public init(_ alarm: Alarm) {
        alarmID = alarm.id
        label = alarm.label
        sound = alarm.sound
        volume = alarm.volume
        fadeInSeconds = alarm.fadeInSeconds
        challenge = alarm.challenge
        mathDifficulty = alarm.mathDifficulty
        allowedTags = alarm.tags
        maxSnoozes = alarm.maxSnoozes
        snoozeMinutes = alarm.snoozeMinutes
        wakeCheckSeconds = alarm.wakeCheckSeconds
        escalateAfterSeconds = alarm.escalateAfterSeconds
        if case .once = alarm.repeats { isOneShot = true } else { isOneShot = false }
    }

    /// `#3 work` or `#3`.
    public var name: String { label.isEmpty ? "#\(alarmID)" : "#\(alarmID) \(label)" }
}

/// Limits that apply to every session.
public struct RingPolicy: Sendable, Hashable {
    /// Ringing longer than this without an answer stops, recorded as unattended; 0 means never.
    public var maxRingSeconds: Int
    /// How long the sound stays low after a problem is asked for.
    public var attenuationSeconds: Int
    /// How long the wake-up check waits for an answer (`[alarm] wake_check_seconds`).
    public var wakeCheckWaitSeconds: Int
    /// How long before it the next ring may be dismissed early (`early_dismiss_minutes`).
    public var earlyDismissSeconds: Int

    public init(
        maxRingSeconds: Int = 30 * 60, attenuationSeconds: Int = 60, wakeCheckWaitSeconds: Int = 60,
        earlyDismissSeconds: Int = 3600
    ) {
        self.earlyDismissSeconds = earlyDismissSeconds
        self.maxRingSeconds = maxRingSeconds
        self.attenuationSeconds = attenuationSeconds
        self.wakeCheckWaitSeconds = wakeCheckWaitSeconds
    }
}

/// A request the session refuses, with what to do instead.
public struct RingRefusal: Error, Equatable, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// The wake-up check of a dismissed session (README, "The wake-up check"): `waiting` until
/// `asksAt`, then `asking` "Are you up?" until `deadline`; answered, it `passed`; not, it `failed`
/// and the alarm rings again as a new session.
public struct WakeCheck: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case waiting, asking, passed, failed
    }

    public var asksAt: Int
    public var deadline: Int
    public var outcome: Outcome
    /// When it was answered or failed.
    public var endedAt: Int?
    /// What answered it: `key KEY_SPACE`, `the page`, `tag "blue"`, `reveille awake`.
    public var answeredBy: String?

    public init(asksAt: Int, deadline: Int, outcome: Outcome = .waiting, endedAt: Int? = nil, answeredBy: String? = nil)
    {
        self.asksAt = asksAt
        self.deadline = deadline
        self.outcome = outcome
        self.endedAt = endedAt
        self.answeredBy = answeredBy
    }

    /// Still to be answered (asked or not yet).
    public var isOpen: Bool { outcome == .waiting || outcome == .asking }

    /// The next instant at which it has something to do.
    public var nextDeadline: Int? {
        switch outcome {
        case .waiting: asksAt
        case .asking: deadline
        default: nil
        }
    }
}

/// One alarm ringing until the sleeper proves they are awake: a pure state machine. Every
/// method takes `now` (seconds since the epoch) and returns the actions for the edges.
public struct RingSession: Sendable, Hashable {
    /// The history row; 0 until stored.
    public private(set) var id: Int
    public private(set) var settings: RingSettings
    /// When the occurrence was due.
    public private(set) var scheduledAt: Int
    /// When it first rang.
    public private(set) var startedAt: Int
    public private(set) var state: SessionState
    public private(set) var snoozeCount: Int
    public private(set) var snoozedUntil: Int?
    /// When the current ringing phase began (auto-stop counts from here).
    public private(set) var ringingSince: Int
    /// What dismisses it now: the alarm's challenge, or math when NFC was asked but no reader was healthy.
    public private(set) var challenge: Challenge
    public private(set) var fellBackToMath: Bool
    public private(set) var problem: MathProblem?
    public private(set) var wrongAnswers: Int
    public private(set) var attenuatedUntil: Int?
    public private(set) var endedAt: Int?
    public private(set) var dismissedBy: DismissalMethod?
    /// The registered tag that dismissed it.
    public private(set) var dismissedTag: String?
    /// Alarms that came due while it rang or was snoozed, and rang as this session.
    public private(set) var joined: [Int]
    /// Rung by `reveille alarm test`, not by the schedule.
    public private(set) var isTest: Bool
    public private(set) var maxRingSeconds: Int
    public private(set) var attenuationSeconds: Int
    /// It rang unanswered for `settings.escalateAfterSeconds`: at full volume until it stops or is snoozed.
    public private(set) var escalated: Bool
    /// The wake-up check planned at its dismissal (`settings.wakeCheckSeconds`), and how it went.
    public private(set) var wakeCheck: WakeCheck?

    /// A session as it was stored (the store's own versioned record, read back).
    public init(
        restoring id: Int, settings: RingSettings, scheduledAt: Int, startedAt: Int, state: SessionState,
        snoozeCount: Int, snoozedUntil: Int?, ringingSince: Int, challenge: Challenge, fellBackToMath: Bool,
        problem: MathProblem?, wrongAnswers: Int, attenuatedUntil: Int?, endedAt: Int?,
        dismissedBy: DismissalMethod?, maxRingSeconds: Int, attenuationSeconds: Int, dismissedTag: String? = nil,
        joined: [Int] = [], isTest: Bool = false, escalated: Bool = false, wakeCheck: WakeCheck? = nil
    ) {
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

    /// The alarm fires: ring now.
    /// - Parameter readerHealthy: whether an NFC reader works right now; without one, an
    ///   NFC-only alarm offers math instead, so no one is left with an alarm they cannot stop.
    /// - Parameter test: rung by `reveille alarm test`: recorded as a test, and a one-shot stays on.
    public static func fire(
        settings: RingSettings, scheduledAt: Int, now: Int, readerHealthy: Bool, policy: RingPolicy = RingPolicy(),
        test: Bool = false
    ) -> (RingSession, [RingAction]) {
        let fallback = settings.challenge == .nfc && !readerHealthy
        let session = RingSession(
            restoring: 0, settings: settings, scheduledAt: scheduledAt, startedAt: now, state: .ringing, snoozeCount: 0,
            snoozedUntil: nil, ringingSince: now, challenge: fallback ? .math : settings.challenge,
            fellBackToMath: fallback, problem: nil, wrongAnswers: 0, attenuatedUntil: nil, endedAt: nil,
            dismissedBy: nil, maxRingSeconds: policy.maxRingSeconds, attenuationSeconds: policy.attenuationSeconds,
            isTest: test)
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

    /// An occurrence that is recorded as missed, never rung.
    public static func missed(settings: RingSettings, scheduledAt: Int, now: Int) -> RingSession {
        RingSession(
            restoring: 0, settings: settings, scheduledAt: scheduledAt, startedAt: now, state: .missed, snoozeCount: 0,
            snoozedUntil: nil, ringingSince: now, challenge: settings.challenge, fellBackToMath: false, problem: nil,
            wrongAnswers: 0, attenuatedUntil: nil, endedAt: now, dismissedBy: nil, maxRingSeconds: 0,
            attenuationSeconds: 0)
    }

    /// Snoozes left, or nil when unlimited.
    public var snoozesLeft: Int? {
        settings.maxSnoozes == 0 ? nil : max(0, settings.maxSnoozes - snoozeCount)
    }

    /// How to stop it, in words: `answer a math problem: reveille dismiss`.
    public var howToDismiss: String {
        switch challenge {
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
        snoozedUntil = now + settings.snoozeMinutes * 60
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

    /// An answer to the current problem. Right: dismissed. Wrong: counted, and a new problem.
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
    /// now takes a math answer too (and still a tag, should the reader come back). True when
    /// that changed anything.
    public mutating func readerLost() -> Bool {
        guard state.isActive, challenge == .nfc else { return false }
        challenge = .any
        fellBackToMath = true
        return true
    }

    /// Another alarm came due while this one is snoozed: the snooze ends now and it rings again,
    /// as one session (one sound, one challenge). Nothing changes while it rings.
    public mutating func wakeForAnotherAlarm(_ alarmID: Int, now: Int) -> [RingAction] {
        if alarmID != settings.alarmID, !joined.contains(alarmID) { joined.append(alarmID) }
        guard state == .snoozed else { return [] }
        snoozedUntil = now
        return tick(now: now)
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

    /// Plans the wake-up check of a session just dismissed, when its alarm has one.
    mutating func planWakeCheck(now: Int, waitSeconds: Int) -> Bool {
        guard state == .dismissed, wakeCheck == nil, settings.wakeCheckSeconds > 0 else { return false }
        let asks = now + settings.wakeCheckSeconds
        wakeCheck = WakeCheck(asksAt: asks, deadline: asks + waitSeconds)
        return true
    }

    /// The wake-up check's time passed: it asks, or, unanswered, fails.
    mutating func advanceWakeCheck(now: Int) -> WakeCheck.Outcome? {
        guard var check = wakeCheck else { return nil }
        switch check.outcome {
        case .waiting where now >= check.asksAt:
            // Asked late (the daemon was down): the full wait still applies from now.
            check.deadline = max(check.deadline, now + (check.deadline - check.asksAt))
            check.outcome = .asking
        case .asking where now >= check.deadline:
            check.outcome = .failed
            check.endedAt = now
        default:
            return nil
        }
        wakeCheck = check
        return check.outcome
    }

    /// Another session rang before the check asked: its challenge stands for the question.
    mutating func giveWay(now: Int, to session: Int) throws(RingRefusal) {
        guard var check = wakeCheck, check.isOpen else { throw RingRefusal("no wake-up check is waiting") }
        check.outcome = .passed
        check.endedAt = now
        check.answeredBy = "session #\(session) rang first"
        wakeCheck = check
    }

    /// The sleeper answered "Are you up?".
    mutating func passWakeCheck(now: Int, by: String) throws(RingRefusal) {
        guard var check = wakeCheck, check.isOpen else { throw RingRefusal("no wake-up check is waiting") }
        guard check.outcome == .asking else {
            throw RingRefusal(
                "the wake-up check has not asked yet; it asks in \(DurationText.format(seconds: check.asksAt - now)) (a confirmation before then does not count)"
            )
        }
        check.outcome = .passed
        check.endedAt = now
        check.answeredBy = by
        wakeCheck = check
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

/// Missed alarms (README, "When an alarm rings"): of the occurrences that came due while no one was looking (the daemon
/// was down, or the clock jumped), the latest one within the grace rings at once; every other one
/// is recorded as missed and never rung late.
public enum MissedAlarms {
    /// `ring`: the latest within the grace; `joining`: others due at that same instant, which ring
    /// as its session (two alarms set for one time are one ring, not a ring and a miss);
    /// `missed`: the rest.
    public static func sort(_ due: [Decision], now: Int, graceSeconds: Int) -> (
        ring: Decision?, joining: [Decision], missed: [Decision]
    ) {
        // Pairs of (instant, decision), oldest first. (Swift 6.3.1's optimizer crashed on a version
        // that unwrapped `ringInstant` inside the guard below.)
        var rings: [(instant: Int, decision: Decision)] = []
        for decision in due {
            if let instant = decision.ringInstant, instant <= now { rings.append((instant, decision)) }
        }
        rings.sort { ($0.instant, $0.decision.alarmID) < ($1.instant, $1.decision.alarmID) }
        guard let latest = rings.last, now - latest.instant <= graceSeconds else {
            return (nil, [], rings.map(\.decision))
        }
        let together = rings.filter { $0.instant == latest.instant }.map(\.decision)
        let earlier = rings.filter { $0.instant < latest.instant }.map(\.decision)
        return (together.first, Array(together.dropFirst()), earlier)
    }
}
