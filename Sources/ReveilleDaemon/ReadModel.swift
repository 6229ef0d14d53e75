import ReveilleCore
import ReveilleProtocol

/// What the machine and the schedule say, worded for people and the wire: sessions, the next ring,
/// the days ahead, reminders. Reads only. The one file outside the core that runs the schedule's
/// and the reminders' engines (for what `next`, `alarm list` and `reminder list` show); the rings
/// themselves are the machine's.
struct ReadModel {
    private let machine: AlarmClock

    init(machine: AlarmClock) { self.machine = machine }

    var zone: Zone { machine.zone }

    // MARK: The machine

    /// The machine's part of `status`: the session, the wake-up check, the sunrise, a silent ring,
    /// whether `dismiss --next` is open, how far it judged, and a wait for the clock.
    func ringStatus(into status: inout StatusInfo, now: Int) {
        if let through = machine.waitingForClock {
            let local = ZoneResolver(zone: zone).local(at: through)
            status.clockWaiting =
                "the clock reads before \(local.date) \(local.time.withSeconds), the last instant handled; nothing rings until network time says the clock is right (timedatectl), or it reaches that instant"
        }
        status.session = machine.session.map(info)
        status.wakeCheck = machine.wakeCheck.flatMap(wakeCheckInfo)
        status.sunrise = machine.sunrise.map(sunriseInfo)
        if machine.isRingingSilently { status.silent = true }
        if machine.earlyDismissalOpen(now: now) { status.earlyDismissal = true }
        status.judgedThrough = machine.evaluatedThrough
    }

    /// Why `use` must wait for the ring (`AlarmClock.refusal(for:)`), or nil.
    func refusal(for use: SideUse) -> RingRefusal? { machine.refusal(for: use) }

    /// What a bedside key does now (`AlarmClock.keypadPhase`).
    func keypadPhase(now: Int) -> RingPhase { machine.keypadPhase(now: now) }

    /// The chime played lately under `key` (the last one, for nil): what "again" repeats.
    func playedChime(key: String?) -> Chime? {
        if let key { machine.playedChime(key: key) } else { machine.lastChime }
    }

    /// The sound files the alarms name (`sound list` offers them too).
    var alarmSounds: [String] { machine.schedule.alarms.compactMap(\.sound) }

    /// The committed rings `after` weakens, whose alarms are still locked (`AlarmClock.lockedWeakenings`).
    func lockedWeakenings(before: ScheduleState, after: ScheduleState, now: Int) -> [Commitment.Weakening] {
        machine.lockedWeakenings(before: before, after: after, now: now)
    }

    /// Why settings that weaken the ring must wait (`AlarmClock.settingsMustWait`), or nil.
    func settingsMustWait(from before: RingTerms, to after: RingTerms, now: Int) -> String? {
        machine.settingsMustWait(from: before, to: after, now: now)
    }

    /// `settingsMustWait` after a look, as of what the machine judged (`AlarmClock.settingsStillWait`).
    func settingsStillWait(from before: RingTerms, to after: RingTerms, now: Int) -> String? {
        machine.settingsStillWait(from: before, to: after, now: now)
    }

    /// The session on, as `status` shows it.
    var session: SessionInfo? { machine.session.map(info) }

    /// A change the machine published, as watchers get it.
    func event(_ change: ClockChange) -> WatchEvent {
        switch change {
        case .session(let session): .session(info(session))
        case .wakeCheck(let session): .wakeCheck(wakeCheckInfo(session)!)
        case .sunrise(let sunrise): .sunrise(sunrise.map(sunriseInfo))
        case .silent(let silent): .silent(silent)
        case .missed(let session):
            .missed({
                var info = MissedInfo(
                    alarmID: session.settings.alarmID, label: session.settings.label,
                    scheduledTime: localTime(session.scheduledAt))
                info.scheduledAt = session.scheduledAt
                return info
            }())
        case .nextRing: .nextRing(nextRing)
        case .tagOnReader(let present): .tagOnReader(present)
        case .readerHealth(let health): .readerHealth(ReaderState(health))
        case .schedule: .schedule
        case .chime(let chime):
            .reminder(chimeInfo(chime))
        case .overrideRemoved(let override, let holiday):
            .overrideRemoved(RemovedOverride(override: OverrideInfo(override), holiday: holiday))
        }
    }

    /// A chime that played, as watchers get it: whom it is for, and the key "again" names it by.
    func chimeInfo(_ chime: Chime) -> ChimeInfo {
        var info = ChimeInfo(text: chime.text, origin: chime.origin, due: dueTime(chime.instant), detail: chime.detail)
        info.user = chime.person
        info.key = chime.key
        return info
    }

    /// The next ring as the machine decided it.
    var nextRing: RingInfo? {
        guard let decision = machine.nextRingDecision else { return nil }
        let label = machine.schedule.alarm(decision.alarmID)?.label ?? ""
        return ringInfo(decision, label: label)
    }

    func info(_ session: RingSession) -> SessionInfo {
        var info = SessionInfo(
            id: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
            state: session.state, scheduledTime: dueTime(session.scheduledAt),
            snoozeCount: session.snoozeCount, maxSnoozes: session.settings.maxSnoozes,
            snoozedUntil: session.snoozedUntil.map { localTime($0, seconds: true) },
            challenge: session.challenge, fellBackToMath: session.fellBackToMath,
            howToDismiss: session.howToDismiss, wrongAnswers: session.wrongAnswers, dismissedBy: session.dismissedBy,
            tagOnReader: session.state.isActive && machine.tagOnReader)
        info.test = session.isTest ? true : nil
        info.scheduledAt = session.scheduledAt
        info.problem = session.state.isActive ? session.problem?.text : nil
        info.escalated = session.escalated ? true : nil
        info.reason = session.state.isActive ? session.reason.rawValue : nil
        info.wakeCheck = wakeCheckInfo(session)
        info.problemsLeft = session.problemsLeft > 1 && session.state.isActive ? session.problemsLeft : nil
        if session.fellBackToMath { info.readerLostSecondsBeforeRing = session.readerLostBeforeRing }
        return info
    }

    func sunriseInfo(_ sunrise: Sunrise) -> SunriseInfo {
        SunriseInfo(
            alarmID: sunrise.alarmID, label: sunrise.label, startsAt: sunrise.startsAt, ringsAt: sunrise.ringsAt,
            time: localTime(sunrise.ringsAt))
    }

    /// A session's wake-up check, when it has one.
    func wakeCheckInfo(_ session: RingSession) -> WakeCheckInfo? {
        guard let check = session.wakeCheck else { return nil }
        return WakeCheckInfo(
            sessionID: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
            state: check.outcome.rawValue, asksAt: localTime(check.asksAt, seconds: true),
            deadline: localTime(check.deadline, seconds: true), deadlineInstant: check.deadline,
            answeredBy: check.answeredBy)
    }

    // MARK: Times

    /// `RingInfo` for a decision that rings.
    func ringInfo(_ decision: Decision, label: String) -> RingInfo? {
        guard let instant = decision.ringInstant else { return nil }
        let local = ZoneResolver(zone: zone).local(at: instant)
        return RingInfo(
            alarmID: decision.alarmID, label: label, date: local.date.description,
            weekday: local.date.weekday.displayName, time: local.time.description, instant: instant,
            layer: decision.layer, sourceID: decision.sourceID)
    }

    /// When a ring was due: `06:45`, or `06:45:12` for a one-shot set to the second (`--in 20m`).
    func dueTime(_ instant: Int) -> String { localTime(instant, seconds: instant % 60 != 0) }

    /// `06:45` (or `06:45:12`) on the wall clock.
    func localTime(_ instant: Int, seconds: Bool = false) -> String {
        let time = ZoneResolver(zone: zone).local(at: instant).time
        return seconds ? time.withSeconds : time.hoursAndMinutes
    }

    /// `2026-11-27 16:00` on the wall clock: when a chime is due.
    func chimeStamp(_ instant: Int) -> String {
        let local = ZoneResolver(zone: zone).local(at: instant)
        return "\(local.date) \(local.time.hoursAndMinutes)"
    }

    // MARK: The schedule ahead

    /// The next ring of one alarm that will come (`AlarmClock.nextUnhandledRing`), as the schedule
    /// `state` has it.
    func nextRing(of alarm: Alarm, in state: ScheduleState, after instant: Int) -> RingInfo? {
        machine.nextUnhandledRing(after: instant, of: alarm.id, in: state).flatMap { ringInfo($0, label: alarm.label) }
    }

    /// Every alarm on every day from `now` for `days` days, with the deciding layer; each day with
    /// nothing to show says why. Today's entries whose time has passed are left out.
    func schedule(
        days: Int, in state: ScheduleState, now: (instant: Int, date: CivilDate, time: LocalTime),
        playedChimes: Set<String>
    ) -> ScheduleReport {
        var report = ScheduleReport(
            labels: Dictionary(
                uniqueKeysWithValues: (state.alarms + [state.household]).map { (String($0.id), $0.label) }),
            times: Dictionary(uniqueKeysWithValues: state.alarms.map { (String($0.id), $0.time.description) }))
        report.days = (0..<days).map { offset in
            let date = now.date.adding(days: offset)
            var day = ScheduleDay(date: date.description, weekday: date.weekday.displayName)
            day.lines.reserveCapacity(state.alarms.count * 5)
            return day
        }
        // Most entries are an alarm ringing as set: encode each of those once.
        let plainRings = Dictionary(
            uniqueKeysWithValues: state.alarms.map { ($0.id, ScheduleDay.Entry.plainRing($0.id).encoded) })
        let skippedToday = machine.forEachDecisionAhead(in: state, from: now.instant, days: days) { decision, handled in
            let index = decision.date.dayNumber - now.date.dayNumber
            if decision.layer == .base, !handled, case .ring(_, _, .none) = decision.verdict,
                decision.holiday == nil, let encoded = plainRings[decision.alarmID]
            {
                return report.days[index].append(encoded: encoded)
            }
            var shown = decision.time
            if case .ring(_, let shownAs, _) = decision.verdict { shown = shownAs }
            report.days[index].append(
                ScheduleDay.Entry(
                    time: shown.description, alarmID: decision.alarmID, layer: decision.layer,
                    rings: decision.ringInstant != nil && !handled,
                    note: handled ? "dismissed early" : decision.note))
        }
        let reminders = reminderRows(
            in: state, from: now.instant, through: now.date.adding(days: days - 1), played: playedChimes)
        report.reminders = reminders.isEmpty ? nil : reminders
        for index in report.days.indices where report.days[index].lines.isEmpty {
            report.days[index].note = index == 0 && skippedToday ? "nothing more today" : "nothing set"
        }
        return report
    }

    // MARK: Reminders

    /// The next chime to play, for `status`: `2026-11-27 16:00 check-in`.
    func nextReminder(in state: ScheduleState, after instant: Int) -> String? {
        guard let chime = ReminderPlan.next(in: state, zone: zone, after: instant) else { return nil }
        return "\(chimeStamp(chime.instant)) \(chime.text)"
    }

    /// The chimes from `instant` through the last day of `next`, each with why it will not play if
    /// so; those already `played` (even when their event moved later) are left out.
    func reminderRows(in state: ScheduleState, from instant: Int, through last: CivilDate, played: Set<String>)
        -> [ReminderRow]
    {
        ReminderPlan.chimesAhead(in: state, zone: zone, after: instant, through: last, played: played).map {
            chime, silenced in
            let local = ZoneResolver(zone: zone).local(at: chime.instant)
            return ReminderRow(
                date: local.date.description, time: local.time.hoursAndMinutes, text: chime.text, origin: chime.origin,
                silenced: silenced, detail: chime.detail)
        }
    }

    /// One reminder as `reminder list` shows it, with its next chime after `instant`.
    func reminderInfo(_ reminder: Reminder, in state: ScheduleState, after instant: Int) -> ReminderInfo {
        let next = ReminderPlan.next(of: reminder, in: state, zone: zone, after: instant).map {
            chimeStamp($0.instant)
        }
        var days: String?
        var date: String?
        switch reminder.repeats {
        case .weekly(let set): days = set.description
        case .once(let day): date = day.description
        }
        var info = ReminderInfo(
            id: reminder.id, text: reminder.text, body: reminder.body, time: reminder.time.description, days: days,
            date: date,
            enabled: reminder.enabled, sound: reminder.sound,
            followUps: reminder.followUps.map { "\(Reminder.after($0.afterSeconds)): \($0.text)" },
            unless: reminder.unless, next: next)
        info.person = reminder.person
        info.withAlarms = reminder.withAlarms ? true : nil
        return info
    }
}
