/// After the ring and before it: the wake-up check ("Are you up?") and the sunrise that leads a
/// ring.
extension AlarmClock {
    // MARK: The wake-up check

    /// "Are you up?" answered: a key, a tap on the page, a tag, or `reveille awake` (`by` says
    /// which, for the log and the history).
    mutating func confirmAwake(now: Int, by: String) -> ClockReply {
        guard var checked = wakeCheck else {
            return ClockReply(result: .failure(RingRefusal("no wake-up check is waiting")), actions: [])
        }
        do {
            try checked.passWakeCheck(now: now, by: by)
        } catch {
            return ClockReply(result: .failure(error), actions: [])
        }
        wakeCheck = nil
        let actions: [ClockAction] =
            [
                .log(.notice, "wake-up check of alarm \(checked.settings.name) passed (\(by))"),
                .persist([checked], evaluatedThrough: nil), .runHook(.awake, checked), .publish(.wakeCheck(checked)),
            ] + setPolling(wantsReader) + wake(now: now)
        return ClockReply(result: .success(checked), actions: actions)
    }

    /// The wake-up check's time came: it asks, or, unanswered, it fails and the alarm rings again
    /// as a new session with its challenge (unless another alarm rings already).
    mutating func advanceWakeCheck(now: Int) -> [ClockAction] {
        guard var checked = wakeCheck, checked.wakeCheck?.nextDeadline.map({ now >= $0 }) == true else { return [] }
        let name = checked.settings.name
        // Another alarm rings or is snoozed when the check would ask: its challenge asks more than
        // "are you up?" does; the check gives way to it (the tone would cut its ring short).
        if let other = session, checked.wakeCheck?.outcome == .waiting {
            try? checked.giveWay(now: now, to: other.id)
            wakeCheck = nil
            return [
                .log(.notice, "wake-up check of alarm \(name) gives way to session #\(other.id), which rings"),
                .persist([checked], evaluatedThrough: nil), .publish(.wakeCheck(checked)),
            ]
        }
        guard let outcome = checked.advanceWakeCheck(now: now) else { return [] }
        guard outcome == .failed else {
            wakeCheck = checked
            return [
                .log(
                    .notice,
                    "wake-up check of alarm \(name): are you up? (waiting until \(ZoneResolver(zone: zone).local(at: checked.wakeCheck!.deadline).time.description))"
                ),
                .warningTone, .say(Spoken.areYouUp), .persist([checked], evaluatedThrough: nil),
                .runHook(.wakeCheck, checked), .publish(.wakeCheck(checked)),
            ] + setPolling(true)
        }
        wakeCheck = nil
        var actions: [ClockAction] = [
            .persist([checked], evaluatedThrough: nil), .runHook(.wakeCheckFailed, checked),
            .publish(.wakeCheck(checked)),
        ]
        guard session == nil else {
            actions.insert(
                .log(.warning, "wake-up check of alarm \(name) failed (no answer); another alarm rings already"), at: 0)
            return actions + setPolling(true)
        }
        let (firing, steps) = fire(checked.settings, scheduledAt: now, now: now, test: checked.isTest)
        let fired = firing.ringingAfterWakeCheck()
        actions.insert(
            .log(
                .warning,
                "wake-up check of alarm \(name) failed: no answer in \(DurationText.format(seconds: checked.wakeCheck!.deadline - checked.wakeCheck!.asksAt)); it rings again (session #\(fired.id))"
            ), at: 0)
        return actions + apply(fired, steps.map { .ring($0) } + fallbackNote(fired), now: now)
    }

    // MARK: The sunrise

    /// The sunrise of the next ring, when its alarm has `--lead`: it begins `leadSeconds` before
    /// the ring (in seconds, not local time: the same length across a DST change), is announced
    /// once, and ends when the ring comes or the ring moves. Returns when the next one begins.
    mutating func followSunrise(now: Int) -> ([ClockAction], Int?) {
        var upcoming: Sunrise?
        if let decision = nextRingDecision, let ring = decision.ringInstant, ring > now,
            let alarm = schedule.alarm(decision.alarmID), alarm.leadSeconds > 0
        {
            upcoming = Sunrise(
                alarmID: alarm.id, label: alarm.label, startsAt: ring - alarm.leadSeconds, ringsAt: ring,
                soundAt: alarm.leadSound ? ring - min(Sunrise.soundSeconds, alarm.leadSeconds) : nil)
        }
        var actions: [ClockAction] = []
        if let current = sunrise, current != upcoming {
            sunrise = nil
            actions.append(.publish(.sunrise(nil)))
        }
        // A lead sound whose ring moved, went, or was dismissed early stops; one whose ring came
        // gave way to it.
        if let playing = leadSoundFor, upcoming.map({ Occurrence(alarmID: $0.alarmID, instant: $0.ringsAt) }) != playing
        {
            leadSoundFor = nil
            if session == nil { actions.append(.stopSound) }
        }
        guard let upcoming else { return (actions, nil) }
        let occurrence = Occurrence(alarmID: upcoming.alarmID, instant: upcoming.ringsAt)
        if let soundAt = upcoming.soundAt, soundAt <= now, leadSoundFor != occurrence, session == nil,
            let alarm = schedule.alarm(upcoming.alarmID)
        {
            leadSoundFor = occurrence
            actions += [
                .log(.info, "sunrise: the sound of alarm \(alarm.name) begins quietly"),
                .leadSound(RingSettings(alarm)),
            ]
        }
        let nextSound = upcoming.soundAt.flatMap { $0 > now ? $0 : nil }
        guard upcoming.startsAt <= now else { return (actions, upcoming.startsAt) }
        if sunrise == nil, lastSunrise != occurrence {
            sunrise = upcoming
            lastSunrise = occurrence
            let local = ZoneResolver(zone: zone).local(at: upcoming.ringsAt).time.hoursAndMinutes
            let name = upcoming.label.isEmpty ? "#\(upcoming.alarmID)" : "#\(upcoming.alarmID) \(upcoming.label)"
            actions += [
                .log(
                    .notice,
                    "sunrise for alarm \(name) begins: it rings at \(local), in \(DurationText.format(seconds: upcoming.ringsAt - now))"
                ),
                .lead(upcoming), .publish(.sunrise(upcoming)),
            ]
        }
        return (actions, nextSound)
    }
}
