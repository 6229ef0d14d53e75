import ReveilleCore
import ReveilleProtocol

/// `status` and `next`: what the schedule says, for people.
extension Controller {
    func status(role: Role) throws -> StatusInfo {
        let now = self.now()
        let state = try currentState(today: now.date)
        var engine = ScheduleEngine(state: state, zone: zone)
        let labels = Dictionary(uniqueKeysWithValues: state.alarms.map { ($0.id, $0.label) })
        let next = engine.nextRing(after: now.instant).flatMap { ringInfo($0, label: labels[$0.alarmID] ?? "") }
        let (master, until): (String, String?) =
            switch state.master {
            case .on: ("on", nil)
            case .off: ("off", nil)
            case .pausedUntil(let date) where date > now.date: ("paused", date.description)
            case .pausedUntil: ("on", nil)
            }
        return StatusInfo(
            version: reveilleVersion, uptimeSeconds: max(0, now.instant - Int(startedAt.timeIntervalSince1970)),
            timeZone: zone.identifier, now: "\(now.date) \(now.time.secondsOfDay % 60 == 0 ? now.time.description + ":00" : now.time.description)",
            nowInstant: now.instant, master: master, pausedUntil: until, alarmCount: state.alarms.count,
            enabledCount: state.alarms.filter(\.enabled).count, nextRing: next, role: role)
    }

    /// Every alarm on every day from today for `days` days, with the deciding layer; a row for each day
    /// with nothing set, so a silent day always says why. Today's rings that have passed are left out.
    func schedule(days: Int) throws -> [ScheduleRow] {
        let now = self.now()
        let state = try currentState(today: now.date)
        let labels = Dictionary(uniqueKeysWithValues: state.alarms.map { ($0.id, $0.label) })
        var engine = ScheduleEngine(state: state, zone: zone)
        var rows: [ScheduleRow] = []
        var day = now.date
        var dayHasRows = false
        var skippedToday = false

        func closeDay() {
            guard !dayHasRows else { return }
            let note = day == now.date && skippedToday ? "nothing more today" : "nothing set"
            rows.append(
                ScheduleRow(
                    date: day.description, weekday: day.weekday.displayName, time: nil, alarmID: nil, label: nil,
                    layer: nil, rings: false, note: note))
        }

        engine.forEachDecision(from: now.date, days: days) { decision in
            while day < decision.date {
                closeDay()
                day = day.adding(days: 1)
                dayHasRows = false
            }
            if decision.date == now.date {
                let passed = decision.ringInstant.map { $0 <= now.instant } ?? (decision.time <= now.time)
                if passed {
                    skippedToday = true
                    return
                }
            }
            dayHasRows = true
            var shown = decision.time
            if case .ring(_, let shownAs, _) = decision.verdict { shown = shownAs }
            rows.append(
                ScheduleRow(
                    date: decision.date.description, weekday: decision.date.weekday.displayName,
                    time: shown.description, alarmID: decision.alarmID, label: labels[decision.alarmID] ?? "",
                    layer: decision.layer, rings: decision.ringInstant != nil, note: decision.note))
        }
        // Days after the last decision (or all of them, with no alarms) still get their row.
        while day < now.date.adding(days: days) {
            closeDay()
            day = day.adding(days: 1)
            dayHasRows = false
        }
        return rows
    }
}
