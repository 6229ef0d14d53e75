import ReveilleCore
import ReveilleProtocol

/// Commitment at the door (README, "Commitment"): a schedule change is first made on a copy of the
/// schedule; when the copy weakens a committed ring (`Commitment`, the core's rule) whose alarm was
/// not unlocked by its challenge, the change is refused before anything is written, from any
/// client and for every role. A change the copy cannot be made with (a bad id, a bad date) goes on
/// to its handler, which refuses it with its own words.
struct CommitmentGate {
    let controller: Controller

    func refusal(for command: Command) -> Response? {
        guard let before = try? controller.currentState(), before.alarms.contains(where: { $0.commitSeconds > 0 }),
            let after = try? draft(command, on: before)
        else { return nil }
        let now = controller.nowSeconds()
        let weakened = Commitment.weakenings(before: before, after: after, zone: controller.zone, now: now).filter {
            !controller.machine.isUnlocked($0.alarm.id, now: now)
        }
        guard let first = weakened.first else { return nil }
        let view = controller.view
        let ring = ZoneResolver(zone: controller.zone).local(at: first.ringsAt)
        var response = Response()
        response.error = ErrorReply(
            code: .challengeFirst,
            message:
                "alarm \(first.alarm.name) rings \(ring.date.weekday.displayName) \(ring.date) at \(view.localTime(first.ringsAt)) and is committed since \(view.localTime(first.windowOpened)) (--commit \(DurationText.format(seconds: first.alarm.commitSeconds))): this \(command.name) \(first.what). Pass its challenge first ('reveille unlock \(first.alarm.id)': its problem or its tag), then make the change again.",
            alarmID: first.alarm.id)
        return response
    }

    /// The schedule `state` would be after `command`; nil for a command that changes no ring.
    private func draft(_ command: Command, on state: ScheduleState) throws -> ScheduleState? {
        var state = state
        let today = controller.today()
        func index(_ id: Int) throws -> Int {
            guard let index = state.alarms.firstIndex(where: { $0.id == id }) else { throw InputError("no alarm") }
            return index
        }
        switch command {
        case .alarmEdit(let id, let spec):
            let at = try index(id)
            try spec.apply(
                to: &state.alarms[at], isNew: false, now: controller.specNow,
                registeredTags: { Set(spec.tags ?? []) }, checkSound: { _ in })
        case .alarmRemove(let id): state.alarms.remove(at: try index(id))
        case .alarmSetEnabled(let id, let enabled): state.alarms[try index(id)].enabled = enabled
        case .ruleAdd(let alarmID, let days, let change):
            let id = (state.rules.map(\.id).max() ?? 0) + 1
            state.rules.append(WeeklyRule(id: id, alarmID: alarmID, days: days, change: change))
        case .ruleEdit(let id, let days, let change, let alarmID, let allAlarms):
            guard let at = state.rules.firstIndex(where: { $0.id == id }) else { return nil }
            if let days { state.rules[at].days = days }
            if let change { state.rules[at].change = change }
            if let alarmID { state.rules[at].alarmID = alarmID }
            if allAlarms { state.rules[at].alarmID = nil }
        case .ruleRemove(let id): state.rules.removeAll { $0.id == id }
        case .overrideAdd(let alarmID, let dateText, let change):
            let id = (state.overrides.map(\.id).max() ?? 0) + 1
            let date = try CivilDate.parse(dateText, today: today)
            state.overrides.append(DateOverride(id: id, alarmID: alarmID, date: date, change: change))
        case .overrideEdit(let id, let dateText, let change, let alarmID, let allAlarms):
            guard let at = state.overrides.firstIndex(where: { $0.id == id }) else { return nil }
            if let dateText { state.overrides[at].date = try CivilDate.parse(dateText, today: today) }
            if let change { state.overrides[at].change = change }
            if let alarmID { state.overrides[at].alarmID = alarmID }
            if allAlarms { state.overrides[at].alarmID = nil }
        case .overrideRemove(let id): state.overrides.removeAll { $0.id == id }
        case .tagRemove(let label):
            for at in state.alarms.indices { state.alarms[at].tags.removeAll { $0 == label } }
        case .pause(let untilText):
            state.master = try untilText.map { .pausedUntil(try CivilDate.parse($0, today: today)) } ?? .off
        default: return nil
        }
        return state
    }
}
