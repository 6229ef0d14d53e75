/// Where a ring session is (docs/guide/ringing.md, "When an alarm rings"): `ringing` → (`snoozed` → `ringing`)* → `dismissed`, or
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

/// What an answer to a ring's problem did.
public enum AnswerOutcome: Sendable, Hashable {
    /// It stopped the ring.
    case dismissed
    /// Right, with more problems to go (math standing in for a lost reader's tag).
    case rightWithMoreToGo
    /// Wrong: a new problem is asked.
    case wrong
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
    /// An app's time runs out in a few minutes (docs/guide/apps.md, "App time windows and daily limits"); not a ring event.
    case appWarning = "app-warning"
    /// A reminder chimed (docs/guide/reminders.md, "Reminders"); not a ring event.
    case chime
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

/// The alarm as it was when it fired, for its session (an edit during the ring changes nothing):
/// its id, name, sound, tags and every setting (`Alarm.settings`), read as the alarm's own
/// (`settings.volume`). Alarms that join the ring make it stricter (`strictest`).
@dynamicMemberLookup
public struct RingSettings: Sendable, Hashable {
    /// The alarm's copy; its settings may be stricter than the alarm's own once others joined.
    public internal(set) var alarm: Alarm
    public internal(set) var isOneShot: Bool

    public var alarmID: Int { alarm.id }
    public var label: String { alarm.label }
    public var sound: String? { alarm.sound }
    /// Labels of the tags that dismiss it; empty means any registered tag.
    public internal(set) var allowedTags: [String] {
        get { alarm.tags }
        set { alarm.tags = newValue }
    }

    public internal(set) var snoozeMinutes: Int {
        get { alarm.snoozeMinutes }
        set { alarm.snoozeMinutes = newValue }
    }
    public internal(set) var laterSnoozeMinutes: [Int] {
        get { alarm.laterSnoozeMinutes }
        set { alarm.laterSnoozeMinutes = newValue }
    }

    /// A setting, as the session rings it: `settings.volume`, `settings.maxSnoozes`.
    public internal(set) subscript<Value>(dynamicMember path: WritableKeyPath<Alarm, Value>) -> Value {
        get { alarm[keyPath: path] }
        set { alarm[keyPath: path] = newValue }
    }

    public init(
        alarmID: Int, label: String, sound: String?, volume: Int, fadeInSeconds: Int, challenge: Challenge,
        mathDifficulty: MathDifficulty, allowedTags: [String], maxSnoozes: Int, snoozeMinutes: Int, isOneShot: Bool,
        wakeCheckSeconds: Int = 0, escalateAfterSeconds: Int = 0, laterSnoozeMinutes: [Int] = []
    ) {
        var alarm = Alarm(
            id: alarmID, label: label, time: LocalTime(secondsOfDay: 0)!, repeats: .weekly(.daily), sound: sound,
            volume: volume, fadeInSeconds: fadeInSeconds, challenge: challenge, mathDifficulty: mathDifficulty,
            tags: allowedTags, maxSnoozes: maxSnoozes, snoozeMinutes: snoozeMinutes,
            wakeCheckSeconds: wakeCheckSeconds, escalateAfterSeconds: escalateAfterSeconds)
        alarm.laterSnoozeMinutes = laterSnoozeMinutes
        self.alarm = alarm
        self.isOneShot = isOneShot
    }

    public init(_ alarm: Alarm) {
        if case .once = alarm.repeats { isOneShot = true } else { isOneShot = false }
        // When it rings is the session's, not the settings': two copies of one alarm's settings
        // are equal whatever its time.
        var copy = alarm
        copy.time = LocalTime(secondsOfDay: 0)!
        copy.repeats = .weekly(.daily)
        copy.enabled = true
        self.alarm = copy
    }

    /// With `values` (a setting's key and value, as a session kept them) over its own.
    public func with(_ values: [String: SettingValue]) -> RingSettings {
        var copy = self
        _ = copy.alarm.set(values)
        return copy
    }

    /// `#3 work` or `#3`.
    public var name: String { label.isEmpty ? "#\(alarmID)" : "#\(alarmID) \(label)" }

    /// These settings joined by another alarm's (README, "When alarms meet"): whichever is
    /// stricter, field by field, so that a ring is never easier to stop than any alarm in it. A
    /// tag only (nfc) over a tag or math (any) over math; the harder problem; the fewer snoozes
    /// (0, unlimited, counts as the most) and the shorter; the louder, the quicker fade-in, the
    /// earlier escalation and wake-up check, the higher volume ceiling. The tags: those both alarms take, or, when they share
    /// none, the tags of the alarm with the stricter challenge (the first on a tie). The name,
    /// sound and one-shot flag stay the session's own.
    public func strictest(with other: RingSettings) -> RingSettings {
        var joined = self
        joined.challenge = Challenge.stricter(self.challenge, other.challenge)
        joined.mathDifficulty = max(self.mathDifficulty, other.mathDifficulty)
        joined.allowedTags = RingSettings.stricterTags(self, other)
        joined.maxSnoozes = RingSettings.sooner(self.maxSnoozes, other.maxSnoozes)
        joined.snoozeMinutes = min(self.snoozeMinutes, other.snoozeMinutes)
        let steps = max(self.laterSnoozeMinutes.count, other.laterSnoozeMinutes.count)
        joined.laterSnoozeMinutes = (0..<steps).map {
            min(minutes(ofSnooze: $0 + 2), other.minutes(ofSnooze: $0 + 2))
        }
        joined.volume = max(self.volume, other.volume)
        joined.fadeInSeconds = min(self.fadeInSeconds, other.fadeInSeconds)
        joined.escalateAfterSeconds = RingSettings.sooner(self.escalateAfterSeconds, other.escalateAfterSeconds)
        joined.wakeCheckSeconds = RingSettings.sooner(self.wakeCheckSeconds, other.wakeCheckSeconds)
        joined.mathProblems = max(self.mathProblems, other.mathProblems)
        joined.volumeCeiling = max(self.volumeCeiling, other.volumeCeiling)
        return joined
    }

    /// The smaller of two limits where 0 means none (unlimited, never).
    static func sooner(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    static func stricterTags(_ a: RingSettings, _ b: RingSettings) -> [String] {
        // A math-only alarm takes no tag: its list says nothing.
        let (left, right) = (a.challenge == .math ? nil : a.allowedTags, b.challenge == .math ? nil : b.allowedTags)
        switch (left, right) {
        case (nil, nil): return a.allowedTags
        case (let only?, nil), (nil, let only?): return only
        case (let x?, let y?):
            if x.isEmpty { return y }
            if y.isEmpty { return x }
            let both = x.filter { y.contains($0) }
            if !both.isEmpty { return both }
            return b.challenge.strictness > a.challenge.strictness ? y : x
        }
    }

    /// What a math fallback asks when a tag-only alarm meets no working reader: the hardest
    /// problem (README, "No reader at the ring").
    func forFallback() -> RingSettings {
        var harder = self
        harder.mathDifficulty = .hard
        return harder
    }
}

extension Challenge {
    /// How much it asks: math < any (a tag or math) < nfc (a tag only).
    public var strictness: Int {
        switch self {
        case .math: 0
        case .any: 1
        case .nfc: 2
        }
    }

    /// The stricter of two challenges.
    public static func stricter(_ a: Challenge, _ b: Challenge) -> Challenge { b.strictness > a.strictness ? b : a }
}

extension MathDifficulty: Comparable {
    private var rank: Int {
        switch self {
        case .easy: 0
        case .medium: 1
        case .hard: 2
        }
    }

    public static func < (a: MathDifficulty, b: MathDifficulty) -> Bool { a.rank < b.rank }
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

/// The wake-up check of a dismissed session (docs/guide/ringing.md, "The wake-up check"): `waiting` until
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
    /// Right answers still needed to dismiss it by math: 1, or `fallbackProblems` when math
    /// stands in for a tag because no reader works.
    public private(set) var problemsLeft: Int
    /// When math stands in for a tag: when the reader stopped working, if the daemon saw it
    /// (nil: it was not working when the daemon started).
    public private(set) var readerLostAt: Int?
    /// When math stands in for a tag: the reader's state then (`unplugged`, `absent: ...`).
    public private(set) var readerState: String?
    /// It rings because its wake-up check went unanswered ("Are you up?"), not at its time.
    public private(set) var afterWakeCheck: Bool

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

/// Missed alarms (docs/guide/ringing.md, "When an alarm rings"): of the occurrences that came due while no one was looking (the daemon
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

extension RingSettings: SnoozeLengths {}
