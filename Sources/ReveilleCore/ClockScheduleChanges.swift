/// A new schedule or zone taken in (what a change leaves behind: held rings, overrides a holiday
/// gated), and what the schedule ahead reads as the machine has handled it.
extension AlarmClock {
    /// The store's alarms, rules, overrides or master switch changed, as of `instant` (when the
    /// request was read). What was due by the old schedule rings first, by a look at `instant` with
    /// the schedule the machine still holds; from then on the new one holds (an alarm added for a
    /// time already past today is not taken for a missed one). Nobody has to remember to look first.
    mutating func scheduleChanged(
        _ schedule: ScheduleState, at instant: Instant, clockSynchronized: Bool = false
    ) -> [ClockAction] {
        let due = tick(at: instant, clockWasSet: false, clockSynchronized: clockSynchronized)
            .filter { if case .wake = $0 { false } else { true } }
        return due + take(schedule, now: instant.second)
    }

    mutating func take(_ schedule: ScheduleState, now: Int) -> [ClockAction] {
        var schedule = schedule
        let stored = schedule.heldAgainstHolidays
        let holds = holdCommittedRings(against: schedule.holidays, stored: stored, now: now)
        let alarms = Set(schedule.alarms.map(\.id))
        schedule.heldAgainstHolidays = holds.held.filter { alarms.contains($0.alarmID) }
        self.schedule = schedule
        nextRing = nil
        chimes.scheduleChanged(now: now)
        var actions: [ClockAction] = holds.said + [.publish(.schedule)]
        if schedule.heldAgainstHolidays != stored { actions.append(.keepHeldRings(schedule.heldAgainstHolidays)) }
        if let through = evaluatedThrough, now > through {
            evaluatedThrough = now
            actions.append(.persist([], evaluatedThrough: now))
            persistedThrough = now
        }
        actions += purgeJudgedDays()  // what the store still holds of judged days
        actions += removeHolidayGatedOverrides(today: ZoneResolver(zone: zone).local(at: now).date)
        return actions + wake(now: now)
    }

    /// A calendar that changes inside a commitment window cannot newly silence the committed ring
    /// (docs/guide/ringing.md, "What a commitment holds"): a ring the new holidays would silence, whose alarm is
    /// committed and not unlocked, is held (it rings; the holiday applies to that alarm after it).
    /// The holds kept in the state (`stored`) stay; holds of days gone by go. Returns the holds and what is said of the new ones.
    func holdCommittedRings(against holidays: [CivilDate: String], stored: Set<HeldRing>, now: Int) -> (
        held: Set<HeldRing>, said: [ClockAction]
    ) {
        let resolver = ZoneResolver(zone: zone)
        let today = resolver.local(at: now).date
        var held = schedule.heldAgainstHolidays.union(stored).filter { $0.date >= today }
        var probe = schedule
        probe.holidays = holidays
        probe.heldAgainstHolidays = held
        var said: [ClockAction] = []
        for weakening in Commitment.weakenings(before: schedule, after: probe, zone: zone, now: now)
        where !isUnlocked(weakening.alarm.id, now: now) {
            let ring = resolver.local(at: weakening.ringsAt)
            guard let holiday = holidays[ring.date], schedule.holidays[ring.date] == nil else { continue }
            held.insert(HeldRing(alarmID: weakening.alarm.id, date: ring.date))
            said.append(
                .log(
                    .notice,
                    "the calendars make \(ring.date) a holiday (\(holiday)), but alarm \(weakening.alarm.name) is committed (--commit \(DurationText.format(seconds: weakening.alarm.commitSeconds))): its ring at \(ring.time.hoursAndMinutes) stands, and the holiday applies to it after that ring"
                ))
        }
        return (held, said)
    }

    /// Date overrides from today on whose day is now a holiday of the one alarm they name, which
    /// skips holidays: they can no longer do anything (the holiday gates every layer), so they go,
    /// each said in the log and to watchers, with the holiday that took its place.
    mutating func removeHolidayGatedOverrides(today: CivilDate) -> [ClockAction] {
        let gated = schedule.overrides.compactMap { override -> (DateOverride, String)? in
            guard override.date >= today, let holiday = schedule.holidayGating(override) else { return nil }
            return (override, holiday)
        }
        guard !gated.isEmpty else { return [] }
        let ids = Set(gated.map(\.0.id))
        schedule.overrides.removeAll { ids.contains($0.id) }
        var actions: [ClockAction] = []
        for (override, holiday) in gated {
            let alarm = schedule.alarms.first { $0.id == override.alarmID }?.name ?? "#\(override.alarmID ?? 0)"
            actions += [
                .removeOverride(id: override.id),
                .log(
                    .notice,
                    "override #\(override.id) (\(override.date) \(override.change), alarm \(alarm)) removed: \(override.date) is now a holiday (\(holiday)) and alarm \(alarm) skips holidays"
                ),
                .publish(.overrideRemoved(override, holiday: holiday)),
            ]
        }
        return actions + [.publish(.schedule)]
    }

    /// The time zone alarm times are read in changed: another zone, or new rules for the same one
    /// (a tzdata update).
    mutating func zoneChanged(to zone: Zone, now: Int) -> [ClockAction] {
        guard zone != self.zone else { return [] }
        let from = self.zone
        self.zone = zone
        nextRing = nil
        chimes.zoneChanged()
        let what =
            zone.identifier == from.identifier
            ? "the rules of time zone \(zone.identifier) changed (\(zone.origin))"
            : "the time zone changed from \(from.identifier) to \(zone.identifier) (\(zone.origin))"
        return [.log(.notice, "\(what); recomputing the schedule")] + wake(now: now)
    }

    // MARK: Read models

    /// The first ring after `instant` not handled already (rung, joined, dismissed early, missed):
    /// of every alarm, or of `alarmID` alone; in the schedule the machine holds, or in `proposed`
    /// (the store's, just after a request changed it). The wake timer, `status`, `alarm list` and
    /// `alarm show` all read it, so none of them shows a ring that will not come.
    public func nextUnhandledRing(after instant: Int, of alarmID: Int? = nil, in proposed: ScheduleState? = nil)
        -> Decision?
    {
        var state = proposed ?? schedule
        if let alarmID { state.alarms = state.alarms.filter { $0.id == alarmID } }
        var engine = ScheduleEngine(state: state, zone: zone)
        var after = instant
        while let found = engine.nextRing(after: after, of: alarmID), let ring = found.ringInstant {
            guard handled.contains(Occurrence(alarmID: found.alarmID, instant: ring)) else { return found }
            // Every alarm due at that instant, lowest id first: one dismissed early leaves the others.
            let due = engine.rings(after: ring - 1, through: ring).filter { alarmID == nil || $0.alarmID == alarmID }
            if let first = due.first(where: { !handled.contains(Occurrence(alarmID: $0.alarmID, instant: ring)) }) {
                return first
            }
            after = ring
        }
        return nil
    }

    /// The days ahead (`ScheduleEngine.forEachDecisionAhead`) in the schedule the machine holds
    /// or in `proposed`, each decision with whether its ring is already handled (dismissed early):
    /// `next`, the week and the month view read it.
    @discardableResult
    public func forEachDecisionAhead(
        in proposed: ScheduleState? = nil, from now: Int, days: Int, _ body: (Decision, _ handled: Bool) -> Void
    ) -> Bool {
        var engine = ScheduleEngine(state: proposed ?? schedule, zone: zone)
        // The closure takes the handled set alone: reading it through `self` copied the whole
        // machine for each decision (a year of 200 alarms is 73,000), a quarter of `next`'s time.
        let handled = handled
        return engine.forEachDecisionAhead(from: now, days: days) { decision in
            body(
                decision,
                decision.ringInstant.map { handled.contains(Occurrence(alarmID: decision.alarmID, instant: $0)) }
                    ?? false)
        }
    }

    /// A session rings and no device plays it: said loudly in `status`.
    public var isRingingSilently: Bool { soundSilent && session?.state == .ringing }

    /// Whether `dismiss --next` would act on the next ring now (no session; the ring within
    /// `earlyDismissSeconds`): `status` offers it then.
    public func earlyDismissalOpen(now: Int) -> Bool {
        guard session == nil, let ring = nextRingDecision?.ringInstant else { return false }
        return isInEarlyWindow(ring, now: now)
    }

    func isInEarlyWindow(_ ring: Int, now: Int) -> Bool { ring - now <= limits.earlyDismissSeconds }
}
