/// What else wants the reader, the speaker or a tag, which a ring (or a snoozed one) comes before.
public enum SideUse: Sendable, Equatable {
    /// `tag add` or `tag test` waiting for a tap.
    case tagWait
    /// `sound test`.
    case soundTest
    /// `sound stop`, which ends a sound test and never a ring.
    case soundStop
    /// `tag remove LABEL`.
    case removeTag(String)
}

extension AlarmClock {
    /// Whether `use` must wait for the ring: the words of the refusal, or nil when it may go on.
    /// While an alarm rings or is snoozed, every tap is the sleeper's (a wait would swallow the one
    /// that dismisses it), the speaker is the alarm's, and a tag that stops it stays registered
    /// (the ring copied its tags when it fired: removing one could leave it with none).
    public func refusal(for use: SideUse) -> RingRefusal? {
        guard let session else { return nil }
        let alarm = "alarm \(session.settings.name) is \(session.state.rawValue)"
        switch use {
        case .tagWait:
            return RingRefusal("\(alarm): a tap now is for it; try again once it is dismissed")
        case .soundTest:
            return RingRefusal(
                "alarm \"\(session.settings.label)\" is \(session.state.rawValue); test the sound after dismissing it")
        case .soundStop:
            return RingRefusal("\(alarm), not a sound test: 'reveille dismiss' stops it")
        case .removeTag(let label):
            guard session.settings.allowedTags.contains(label) else { return nil }
            return RingRefusal("\(alarm) and tag \"\(label)\" stops it: remove the tag once it is dismissed")
        }
    }

    /// What a bedside key does now (`BedsideKeys`): the ring's phase, the wake-up check's, or a
    /// reminder's chime a moment ago.
    public func keypadPhase(now: Int) -> RingPhase {
        switch session?.state {
        case .ringing: .ringing
        case .snoozed: .snoozed
        default: isAskingIfAwake ? .checking : chimedLately(now: now) ? .chimed : .idle
        }
    }

    /// The committed rings that the schedule `after` weakens against `before`, as of `now`, whose
    /// alarms were not unlocked by their challenge (`Commitment`): what the commitment gate refuses.
    public func lockedWeakenings(before: ScheduleState, after: ScheduleState, now: Int) -> [Commitment.Weakening] {
        Commitment.weakenings(before: before, after: after, zone: zone, now: now).filter {
            !isUnlocked($0.alarm.id, now: now)
        }
    }
}
