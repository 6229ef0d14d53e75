import ReveilleCore

// Ring sessions: the one ringing, the answers to snooze and dismiss, history and stats.

/// The ring session after `snooze`, `dismiss` or an answer.
public struct RingReply: Codable, Sendable, Equatable {
    public var session: SessionInfo
    /// The math problem to answer, as shown: `37 × 4 + 19`.
    public var problem: String?
    /// After an answer: whether it was right.
    public var correct: Bool?

    public init(session: SessionInfo, problem: String? = nil, correct: Bool? = nil) {
        self.session = session
        self.problem = problem
        self.correct = correct
    }
}

/// The alarm that is ringing or snoozed.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int
    public var label: String
    /// Ringing or snoozed (or how it ended, after a dismissal).
    public var state: SessionState
    /// Local `HH:MM` it was due (`HH:MM:SS` when set to the second).
    public var scheduledTime: String
    /// When it was due, in seconds since the epoch.
    public var scheduledAt: Int?
    /// Rung by `reveille alarm test`.
    public var test: Bool?
    public var snoozeCount: Int
    /// 0: unlimited.
    public var maxSnoozes: Int
    /// Local `HH:MM:SS` the snooze ends.
    public var snoozedUntil: String?
    /// What stops it now.
    public var challenge: Challenge
    /// NFC was asked for, but no reader was healthy when it fired.
    public var fellBackToMath: Bool
    public var howToDismiss: String
    public var wrongAnswers: Int
    /// How it ended, once dismissed.
    public var dismissedBy: DismissalMethod?
    /// A tag lies on the reader: it must be lifted, then tapped.
    public var tagOnReader: Bool
    /// The math problem asked and not yet answered (`37 + 48`); nil until one is asked.
    public var problem: String?
    /// Rang unanswered for its `--escalate-after`: at full volume now.
    public var escalated: Bool?
    /// After a dismissal: the wake-up check planned, asking, or how it went.
    public var wakeCheck: WakeCheckInfo?
    /// Right answers still needed, when more than one: math stands in for a tag (no reader works).
    public var problemsLeft: Int?
    /// When math stands in for a tag: how long before the ring the reader stopped working (nil
    /// when not seen: it was not working when the daemon started).
    public var readerLostSecondsBeforeRing: Int?
    /// Why it rings now, for a screen to say: `time` (its time came), `snooze` (a snooze ended)
    /// or `wake-check` (its "Are you up?" went unanswered).
    public var reason: String?

    public init(
        id: Int, alarmID: Int, label: String, state: SessionState, scheduledTime: String, snoozeCount: Int,
        maxSnoozes: Int, snoozedUntil: String?, challenge: Challenge, fellBackToMath: Bool, howToDismiss: String,
        wrongAnswers: Int, dismissedBy: DismissalMethod?, tagOnReader: Bool
    ) {
        self.id = id
        self.alarmID = alarmID
        self.label = label
        self.state = state
        self.scheduledTime = scheduledTime
        self.snoozeCount = snoozeCount
        self.maxSnoozes = maxSnoozes
        self.snoozedUntil = snoozedUntil
        self.challenge = challenge
        self.fellBackToMath = fellBackToMath
        self.howToDismiss = howToDismiss
        self.wrongAnswers = wrongAnswers
        self.dismissedBy = dismissedBy
        self.tagOnReader = tagOnReader
    }

    /// `#3 work` or `#3`.
    public var name: String { Alarm.name(id: alarmID, label: label) }
}

/// The wake-up check after a dismissal (docs/guide/ringing.md, "The wake-up check").
public struct WakeCheckInfo: Codable, Sendable, Equatable {
    /// The session it follows.
    public var sessionID: Int
    public var alarmID: Int
    public var label: String
    /// `waiting`, `asking`, `passed` or `failed`.
    public var state: String
    /// Local `HH:MM:SS` it asks "Are you up?".
    public var asksAt: String
    /// Local `HH:MM:SS` the alarm rings again without an answer.
    public var deadline: String
    /// Seconds since the epoch of `deadline`, for a countdown.
    public var deadlineInstant: Int
    /// What answered it.
    public var answeredBy: String?

    public init(
        sessionID: Int, alarmID: Int, label: String, state: String, asksAt: String, deadline: String,
        deadlineInstant: Int, answeredBy: String?
    ) {
        self.sessionID = sessionID
        self.alarmID = alarmID
        self.label = label
        self.state = state
        self.asksAt = asksAt
        self.deadline = deadline
        self.deadlineInstant = deadlineInstant
        self.answeredBy = answeredBy
    }

    /// `#3 work` or `#3`.
    public var name: String { Alarm.name(id: alarmID, label: label) }
}

/// The sunrise before a ring with `--lead`: the page becomes a light from dark red to warm white.
public struct SunriseInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    public var label: String
    /// Seconds since the epoch: when the light began, and when the alarm rings.
    public var startsAt: Int
    public var ringsAt: Int
    /// Local `HH:MM` of the ring.
    public var time: String

    public init(alarmID: Int, label: String, startsAt: Int, ringsAt: Int, time: String) {
        self.alarmID = alarmID
        self.label = label
        self.startsAt = startsAt
        self.ringsAt = ringsAt
        self.time = time
    }
}

/// One line of `reveille history`.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int
    public var label: String
    /// Local date and time it was due: `2026-11-23 06:45`.
    public var scheduled: String
    /// Local time it first rang (`HH:MM:SS`); nil for a missed one.
    public var started: String?
    /// ringing, snoozed, dismissed, auto-stopped, missed.
    public var state: SessionState
    public var snoozes: Int
    public var wrongAnswers: Int
    /// Local time it ended (`HH:MM:SS`).
    public var ended: String?
    /// `math` or `tag`.
    public var dismissedBy: DismissalMethod?
    /// From first ring to dismissal.
    public var secondsToDismiss: Int?
    /// A tag alarm that asked for math instead: no reader worked.
    public var fellBackToMath: Bool?
    /// The reader's state when math stood in for the tag (`unplugged`, `absent: ...`).
    public var readerState: String?
    /// How long before the ring the reader stopped working, when the daemon saw it.
    public var readerLostSecondsBeforeRing: Int?
    /// The registered tag that dismissed it.
    public var dismissedTag: String?
    /// Alarms that came due during it and rang as this session, by id.
    public var joined: [Int]?
    /// Rung by `reveille alarm test`.
    public var test: Bool?
    /// The wake-up check after the dismissal: `passed`, `failed`, or still `waiting`/`asking`.
    public var wakeCheck: String?
    /// Dismissed before it rang (`dismiss --next`): it never rang.
    public var early: Bool?

    public init(
        id: Int, alarmID: Int, label: String, scheduled: String, started: String?, state: SessionState, snoozes: Int,
        wrongAnswers: Int, ended: String?, dismissedBy: DismissalMethod?, secondsToDismiss: Int?
    ) {
        self.id = id
        self.alarmID = alarmID
        self.label = label
        self.scheduled = scheduled
        self.started = started
        self.state = state
        self.snoozes = snoozes
        self.wrongAnswers = wrongAnswers
        self.ended = ended
        self.dismissedBy = dismissedBy
        self.secondsToDismiss = secondsToDismiss
    }
}

/// `reveille stats`: how mornings went.
public struct StatsInfo: Codable, Sendable, Equatable {
    public var days: Int
    /// Occurrences that rang.
    public var sessions: Int
    public var dismissed: Int
    public var autoStopped: Int
    public var missed: Int
    public var averageSnoozes: Double?
    public var averageSecondsToDismiss: Double?
    public var wrongAnswers: Int
    /// Wake-up checks answered, and those that went unanswered (the alarm rang again).
    public var wakeChecksPassed: Int?
    public var wakeChecksFailed: Int?

    public init(
        days: Int, sessions: Int, dismissed: Int, autoStopped: Int, missed: Int, averageSnoozes: Double?,
        averageSecondsToDismiss: Double?, wrongAnswers: Int
    ) {
        self.days = days
        self.sessions = sessions
        self.dismissed = dismissed
        self.autoStopped = autoStopped
        self.missed = missed
        self.averageSnoozes = averageSnoozes
        self.averageSecondsToDismiss = averageSecondsToDismiss
        self.wrongAnswers = wrongAnswers
    }
}

extension StatsInfo {
    /// The mornings of `sessions` (`alarm test`s are not mornings) over `days` days.
    public init(days: Int, of sessions: [RingSession]) {
        let mornings = sessions.filter { !$0.isTest }
        let rang = mornings.filter(\.rang)
        let dismissed = mornings.compactMap(\.secondsToDismiss)
        func average(_ values: [Int]) -> Double? {
            values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
        }
        self.init(
            days: days, sessions: rang.count, dismissed: dismissed.count,
            autoStopped: mornings.filter { $0.state == .autoStopped }.count, missed: mornings.count - rang.count,
            averageSnoozes: average(rang.map(\.snoozeCount)), averageSecondsToDismiss: average(dismissed),
            wrongAnswers: rang.reduce(0) { $0 + $1.wrongAnswers })
        let checks = mornings.compactMap { $0.wakeCheck?.outcome }
        if !checks.isEmpty {
            wakeChecksPassed = checks.filter { $0 == .passed }.count
            wakeChecksFailed = checks.filter { $0 == .failed }.count
        }
    }
}

/// An occurrence recorded as missed, never rung.
public struct MissedInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    public var label: String
    /// Local `HH:MM` it was due.
    public var scheduledTime: String
    /// When it was due, in seconds since the epoch.
    public var scheduledAt: Int?

    public init(alarmID: Int, label: String, scheduledTime: String) {
        self.alarmID = alarmID
        self.label = label
        self.scheduledTime = scheduledTime
    }
}

/// The words for a ring whose math stands in for its tag, one place for the CLI's status and
/// history: `the reader was unplugged 12 min before the ring`.
public enum ReaderFallbackNote {
    public static func words(state: String?, secondsBeforeRing: Int?) -> String {
        let when: String =
            switch secondsBeforeRing {
            case nil: "it was not working when the alarm rang"
            case 0?: "it stopped during the ring"
            case let seconds?: "it stopped working \(DurationText.format(seconds: seconds)) before the ring"
            }
        return "the NFC reader" + (state.map { " was \($0); " } ?? ": ") + when
    }
}
