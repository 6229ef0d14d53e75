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

/// The wake-up check's part of a ring session: planned at the dismissal, asked, failed, given
/// way to another alarm, or passed.
extension RingSession {
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
}
