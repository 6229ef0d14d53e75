/// The settings of reveille.toml that shape every ring, as commitment compares them (README,
/// "What a commitment holds"): a reload that would weaken a committed ring waits until after it.
public struct RingTerms: Sendable, Equatable {
    /// Ringing unanswered longer than this stops; 0: never.
    public var maxRingSeconds: Int
    /// How long the wake-up check waits for an answer.
    public var wakeCheckWaitSeconds: Int
    /// How old a ring found late may be and still ring.
    public var graceSeconds: Int
    /// An NFC reader is configured (`[nfc] device`).
    public var readerConfigured: Bool

    public init(maxRingSeconds: Int, wakeCheckWaitSeconds: Int, graceSeconds: Int, readerConfigured: Bool) {
        self.maxRingSeconds = maxRingSeconds
        self.wakeCheckWaitSeconds = wakeCheckWaitSeconds
        self.graceSeconds = graceSeconds
        self.readerConfigured = readerConfigured
    }

    /// How `after` rings more gently than these terms, in words; empty when it does not.
    public func weakenings(by after: RingTerms) -> [String] {
        var found: [String] = []
        func minutes(_ seconds: Int) -> String { seconds == 0 ? "never" : DurationText.format(seconds: seconds) }
        if after.maxRingSeconds != 0, maxRingSeconds == 0 || after.maxRingSeconds < maxRingSeconds {
            found.append(
                "stops an unanswered ring sooner (max_ring_minutes: \(minutes(maxRingSeconds)) → \(minutes(after.maxRingSeconds)))"
            )
        }
        if readerConfigured, !after.readerConfigured {
            found.append("removes the NFC reader (a tag-only alarm would take math)")
        }
        if after.wakeCheckWaitSeconds > wakeCheckWaitSeconds {
            found.append("gives the wake-up check longer (wake_check_seconds)")
        }
        if after.graceSeconds < graceSeconds {
            found.append("lets fewer late rings ring (missed_grace_minutes)")
        }
        return found
    }
}

extension AlarmClock {
    /// Whether new settings from reveille.toml must wait: they weaken the rings (`RingTerms`) and
    /// a committed ring is inside its window (its alarm not unlocked), or an alarm rings or is
    /// snoozed. The words for the log and `status`; nil when they may apply now.
    public func settingsMustWait(from before: RingTerms, to after: RingTerms, now: Int) -> String? {
        let weaker = before.weakenings(by: after)
        guard !weaker.isEmpty else { return nil }
        let what = weaker.joined(separator: " and ")
        if let session {
            return "it \(what); alarm \(session.settings.name) is \(session.state.rawValue): they apply once it is over"
        }
        let resolver = ZoneResolver(zone: zone)
        for alarm in schedule.alarms where alarm.commitSeconds > 0 && !isUnlocked(alarm.id, now: now) {
            guard let ring = Commitment.nextRing(of: alarm, in: schedule, zone: zone, after: now),
                ring - now <= alarm.commitSeconds
            else { continue }
            let local = resolver.local(at: ring)
            return
                "it \(what); alarm \(alarm.name) is committed (--commit \(DurationText.format(seconds: alarm.commitSeconds))) to its ring at \(local.date) \(local.time.hoursAndMinutes): they apply after that ring"
        }
        return nil
    }

    /// `settingsMustWait` for settings that already wait, asked after each look: as of the last
    /// instant the machine judged, not the wall clock (a clock that moved onto the ring before the
    /// machine looked must not let the file in ahead of the ring).
    public func settingsStillWait(from before: RingTerms, to after: RingTerms, now: Int) -> String? {
        settingsMustWait(from: before, to: after, now: min(now, evaluatedThrough ?? now))
    }
}
