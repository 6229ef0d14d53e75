import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol

/// Carrying out the clock machine's actions, and answering the sleeper's requests from its replies.
extension Controller {
    /// Does what the machine asked, in order, deciding nothing.
    func carryOut(_ actions: [ClockAction]) {
        for action in actions {
            switch action {
            case .play(let settings):
                ring.audio.play(
                    AudioRequest(sound: settings.sound, volume: settings.volume, fadeInSeconds: settings.fadeInSeconds))
            case .stopSound: ring.audio.stop()
            case .attenuate(let lower): ring.audio.setAttenuated(lower)
            case .pollReader(let on): ring.reader.setPolling("ring", on)
            case .runHook(let event, let session): hooks.run(event, for: session)
            case .persist(let sessions, let through):
                do {
                    try store.record(sessions, evaluatedThrough: through)
                } catch {
                    logger.error("could not save the ring state: \(error); it goes on in memory")
                }
            case .disableAlarm(let id): disableOneShot(id)
            case .purge(let before): purge(before: before)
            case .say(let text): ring.voice.say(text)
            case .warningTone: ring.audio.play(AudioRequest(sound: nil, volume: 60, fadeInSeconds: 0, length: .once))
            case .appWarningHook(let app, let user, let left):
                runAppWarningHook(app: app, user: user, secondsLeft: left)
            case .log(let level, let text): logger.log(level: Logger.Level(level), "\(text)")
            case .publish(let change): publish(change)
            case .wake(let instant):
                armedWake = instant
                onWake(instant)
            case .chime(let chime):
                // Once, at the alarms' default volume, without fade. No sound of its own: one cycle of
                // the built-in tone ("" skips the configured alarm sound, which may be minutes long).
                ring.audio.play(
                    AudioRequest(sound: chime.sound ?? "", volume: ring.defaultVolume, fadeInSeconds: 0, length: .once))
            case .checkChime(let chime):
                let report = reportChimeCheck
                hooks.check(chime.unless ?? "false", for: chime.text) { skip, detail in
                    report(chime.key, skip, detail)
                }
            case .recordChime(let chime, let outcome, let at):
                do {
                    try store.record(chime: chime, outcome: outcome, at: at)
                } catch {
                    logger.error("could not keep that reminder \"\(chime.text)\" was \(outcome.rawValue): \(error)")
                }
            }
        }
    }

    private func publish(_ change: ClockChange) {
        switch change {
        case .session(let session): onPublish(.session(info(session)))
        case .missed(let session):
            onPublish(
                .missed(
                    MissedInfo(
                        alarmID: session.settings.alarmID, label: session.settings.label,
                        scheduledTime: localTime(session.scheduledAt))))
        case .nextRing:
            onPublish(.nextRing(nextRingInfo()))
        case .tagOnReader(let present): onPublish(.tagOnReader(present))
        case .readerHealth(let health): onPublish(.readerHealth(ReaderState(health)))
        case .schedule: onPublish(.schedule)
        case .chime(let chime):
            onPublish(.reminder(ChimeInfo(text: chime.text, origin: chime.origin, due: dueTime(chime.instant))))
        }
    }

    /// The next ring as the machine decided it, for status and watchers.
    func nextRingInfo() -> RingInfo? {
        guard let decision = machine.nextRingDecision else { return nil }
        let label = machine.schedule.alarms.first { $0.id == decision.alarmID }?.label ?? ""
        return ringInfo(decision, label: label)
    }

    /// The answer to `snooze`, `dismiss` (the problem) or `dismiss --answer`.
    func sessionReply(_ reply: ClockReply, for operation: Command) -> Response {
        carryOut(reply.actions)
        let session: RingSession
        switch reply.result {
        case .failure(let refusal): return .failure(.refused, refusal.message)
        case .success(let value): session = value
        }
        var reply = RingReply(session: info(session))
        var message: String?
        switch operation {
        case .snooze:
            let left =
                session.snoozesLeft.map { "\($0) of \(session.settings.maxSnoozes) snoozes left" }
                ?? "unlimited snoozes"
            message =
                "snoozed alarm \(session.settings.name) until \(localTime(session.snoozedUntil ?? 0, seconds: true)) (\(left))"
        case .problem:
            reply.problem = session.problem?.text
        case .alarmTest:
            message =
                "alarm \(session.settings.name) rings now as a test; stop it as it asks: \(info(session).howToDismiss)"
        default:
            let correct = session.state == .dismissed
            reply.correct = correct
            if correct {
                message = "dismissed alarm \(session.settings.name). Good morning."
            } else {
                reply.problem = session.problem?.text
                message = "wrong answer; a new problem: \(session.problem?.text ?? "?")"
            }
        }
        return Response(message: message, payload: .ring(reply))
    }

    private func disableOneShot(_ id: Int) {
        do {
            guard var alarm = try store.alarm(id: id), alarm.enabled else { return }
            alarm.enabled = false
            _ = try store.update(alarm)
            logger.info("one-shot alarm \(alarm.name) has rung; it is now disabled")
        } catch {
            logger.error("could not turn one-shot alarm #\(id) off: \(error)")
        }
    }

    // MARK: Reporting

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
        return info
    }

    func history(days: Int) throws -> [HistoryEntry] {
        guard (1...3660).contains(days) else { throw InputError("--days \(days): must be 1-3660") }
        let since = nowSeconds() - days * 86_400
        let resolver = ZoneResolver(zone: zone)
        return try store.history(since: since).map { session in
            let scheduled = resolver.local(at: session.scheduledAt)
            let wasMissed = session.state == .missed
            var entry = HistoryEntry(
                id: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
                scheduled: "\(scheduled.date) \(dueTime(session.scheduledAt))",
                started: wasMissed ? nil : localTime(session.startedAt, seconds: true), state: session.state,
                snoozes: session.snoozeCount, wrongAnswers: session.wrongAnswers,
                ended: session.endedAt.map { localTime($0, seconds: true) }, dismissedBy: session.dismissedBy,
                secondsToDismiss: session.state == .dismissed ? session.endedAt.map { $0 - session.startedAt } : nil)
            entry.fellBackToMath = session.fellBackToMath ? true : nil
            entry.dismissedTag = session.dismissedTag
            entry.joined = session.joined.isEmpty ? nil : session.joined
            entry.test = session.isTest ? true : nil
            return entry
        }
    }

    func stats(days: Int) throws -> StatsInfo {
        let entries = try history(days: days).filter { $0.test != true }  // a try is not a morning
        let rang = entries.filter { $0.state != .missed }
        let dismissed = entries.compactMap(\.secondsToDismiss)
        func average(_ values: [Int]) -> Double? {
            values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
        }
        return StatsInfo(
            days: days, sessions: rang.count, dismissed: dismissed.count,
            autoStopped: entries.filter { $0.state == .autoStopped }.count,
            missed: entries.count - rang.count, averageSnoozes: average(rang.map(\.snoozes)),
            averageSecondsToDismiss: average(dismissed), wrongAnswers: rang.reduce(0) { $0 + $1.wrongAnswers })
    }

    /// Seconds from now to the instant the machine asked to be woken at (negative once passed),
    /// nil when it asked for none: the control server keeps requests back just before a ring.
    func secondsUntilWake() -> Double? {
        armedWake.map { Double($0) - clock.now().timeIntervalSince1970 }
    }

    /// Whether the machine's wake (a ring, a snooze's end, a chime) is due within
    /// `quietBeforeWake`: what can wait (requests, a calendar read's result) then waits, so that
    /// its cost never lands on the ring.
    func wakeIsClose() -> Bool {
        guard let seconds = secondsUntilWake() else { return false }
        return seconds > -1 && seconds < Controller.quietBeforeWake
    }

    static let quietBeforeWake = 0.25

    func nowSeconds() -> Int { Int(clock.now().timeIntervalSince1970.rounded(.down)) }

    /// `06:45` (or `06:45:12`) on the wall clock.
    /// When a ring was due: `06:45`, or `06:45:12` for a one-shot set to the second (`--in 20m`).
    func dueTime(_ instant: Int) -> String { localTime(instant, seconds: instant % 60 != 0) }

    func localTime(_ instant: Int, seconds: Bool = false) -> String {
        let time = ZoneResolver(zone: zone).local(at: instant).time
        return seconds ? time.withSeconds : time.hoursAndMinutes
    }
}

extension Logger.Level {
    init(_ level: LogLevel) {
        switch level {
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        }
    }
}
