import ReveilleCore
import ReveilleProtocol

/// `status` and `next`: what the schedule says, for people.
extension Controller {
    func status(role: Role) throws -> StatusInfo {
        let now = self.now()
        let state = try currentState()
        let next = nextRingInfo()
        let (master, until): (String, String?) =
            switch state.master {
            case .on: ("on", nil)
            case .off: ("off", nil)
            case .pausedUntil(let date) where date > now.date: ("paused", date.description)
            case .pausedUntil: ("on", nil)
            }
        var info = StatusInfo(
            version: reveilleVersion, uptimeSeconds: max(0, now.instant - Int(startedAt.timeIntervalSince1970)),
            timeZone: zone.identifier,
            now: "\(now.date) \(now.time.withSeconds)",
            nowInstant: now.instant, master: master, pausedUntil: until, alarmCount: state.alarms.count,
            enabledCount: state.alarms.filter(\.enabled).count, nextRing: next, role: role)
        info.timeZoneRules = zone.origin
        info.nextReminder = nextReminder(in: state, after: now.instant)
        let problems = calendarProblems()
        info.calendarProblems = problems.isEmpty ? nil : problems
        let stateProblems = [stateRestored, store.problem].compactMap { $0 }
        info.stateProblems = stateProblems.isEmpty ? nil : stateProblems
        if let through = machine.waitingForClock {
            let local = ZoneResolver(zone: zone).local(at: through)
            info.clockWaiting =
                "the clock reads before \(local.date) \(local.time.withSeconds), the last instant handled; nothing rings until network time says the clock is right (timedatectl), or it reaches that instant"
        }
        info.session = machine.session.map(self.info)
        info.reader = ReaderState(ring.reader.health)
        info.sound = ring.audio.statusLine
        info.appGuard = appSupervisor?.mode ?? AppGuardState(mode: .starting, detail: "")
        info.inputs = bedside?.states ?? []
        info.voice = ring.voice.statusLine
        info.settingsRejected = settingsRejection
        info.resources = ResourceUse.current()
        return info
    }

    /// Every alarm on every day from today for `days` days, with the deciding layer; each day with
    /// nothing to show says why. Today's entries whose time has passed are left out.
    func schedule(days: Int) throws -> ScheduleReport {
        let now = self.now()
        let state = try currentState()
        var report = ScheduleReport(
            labels: Dictionary(uniqueKeysWithValues: state.alarms.map { (String($0.id), $0.label) }),
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
        var skippedToday = false
        var engine = ScheduleEngine(state: state, zone: zone)
        engine.forEachDecision(from: now.date, days: days) { decision in
            if decision.date == now.date,
                decision.ringInstant.map({ $0 <= now.instant }) ?? (decision.time <= now.time)
            {
                skippedToday = true
                return
            }
            let index = decision.date.dayNumber - now.date.dayNumber
            if decision.layer == .base, case .ring(_, _, .none) = decision.verdict,
                let encoded = plainRings[decision.alarmID]
            {
                return report.days[index].append(encoded: encoded)
            }
            var shown = decision.time
            if case .ring(_, let shownAs, _) = decision.verdict { shown = shownAs }
            report.days[index].append(
                ScheduleDay.Entry(
                    time: shown.description, alarmID: decision.alarmID, layer: decision.layer,
                    rings: decision.ringInstant != nil, note: decision.note))
        }
        let reminders = reminderRows(in: state, from: now.instant, through: now.date.adding(days: days - 1))
        report.reminders = reminders.isEmpty ? nil : reminders
        for index in report.days.indices where report.days[index].lines.isEmpty {
            report.days[index].note = index == 0 && skippedToday ? "nothing more today" : "nothing set"
        }
        return report
    }
}
