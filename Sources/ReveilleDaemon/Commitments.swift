import ReveilleCore
import ReveilleProtocol

/// Commitment at the door (docs/guide/ringing.md, "Commitment"): a schedule change is first made
/// on a copy of the schedule, by the one `ScheduleEdit` its handler then writes, as of the one
/// reading of the clock both use (`Judged`, made in `Requests.serve`); when the copy weakens a
/// committed ring (`Commitment`, the core's rule) whose alarm was not unlocked by its challenge,
/// the change is refused before anything is written, from any client and for every role. A change
/// the copy cannot be made with (a bad id) goes on to its handler, which refuses it with its own
/// words. When the schedule cannot be read, the gate cannot judge, and it refuses: commitment
/// fails closed.
struct CommitmentGate {
    let controller: Controller

    /// The refusal of `command`, whose edit is `judged` (nil: it changes no ring), or nil.
    func refusal(for command: Command, _ judged: Judged?) -> Response? {
        let before: ScheduleState
        do {
            before = try controller.currentState()
        } catch {
            return .failure(
                .internal,
                "the schedule cannot be read to judge whether this \(command.name) weakens a committed ring (\(error)): nothing was changed. Try again; if it goes on, 'reveille doctor' checks the state"
            )
        }
        guard before.alarms.contains(where: { $0.commitSeconds > 0 }), let judged,
            let after = try? judged.edit.applied(to: before, now: judged.now)
        else { return nil }
        let now = judged.now.instant
        let view = controller.view
        guard let first = view.lockedWeakenings(before: before, after: after, now: now).first else { return nil }
        let ring = ZoneResolver(zone: controller.zone).local(at: first.ringsAt)
        var response = Response()
        response.error = ErrorReply(
            code: .challengeFirst,
            message:
                "alarm \(first.alarm.name) rings \(ring.date.weekday.displayName) \(ring.date) at \(view.localTime(first.ringsAt)) and is committed since \(view.localTime(first.windowOpened)) (--commit \(DurationText.format(seconds: first.alarm.commitSeconds))): this \(command.name) \(first.what). Pass its challenge first ('reveille unlock \(first.alarm.id)': its problem or its tag), then make the change again.",
            alarmID: first.alarm.id)
        return response
    }
}
