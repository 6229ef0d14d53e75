import ReveilleCore
import ReveilleProtocol

/// The sleeper's requests: `snooze`, `dismiss` (the problem, then the answer) and `alarm test`.
/// The machine decides each; this words its reply.
final class RingRequests: RequestHandler {
    private let controller: Controller

    init(controller: Controller) {
        self.controller = controller
    }

    func handle(_ request: Asked) throws -> Handled {
        let event: ClockEvent
        switch request.command {
        case .unlock(let alarmID, let answer): return .answer(try unlock(alarmID, answer: answer))
        case .dismissNext: return .answer(try dismissNext())
        case .snooze: event = .snooze
        case .problem: event = .problem
        case .answer(let value): event = .answer(value)
        case .awake:
            event = .awake(
                by: request.device.map { "the page (\($0))" } ?? (request.relayed ? "the page" : "reveille awake"))
        case .alarmTest(let id):
            controller.tick()  // what is due by the schedule rings first
            event = .test(alarmID: id)
        default: throw misrouted(request.command)
        }
        return .answer(try response(controller.handle(event), for: request.command))
    }

    /// `unlock`: the alarm's challenge (its problem, or a tap of its tag), or an answer to it.
    private func unlock(_ alarmID: Int, answer: Int?) throws -> Response {
        let event: ClockEvent =
            if let answer { .unlockAnswer(alarmID: alarmID, value: answer) } else { .unlock(alarmID: alarmID) }
        guard case .unlock(let result) = controller.handle(event) else {
            throw Refusal(.internal, "no answer to unlock")
        }
        var response: Response
        switch try result.get() {
        case .wrong(let next):
            response = Response(message: "wrong answer; a new problem: \(next.text)")
            response.unlock = UnlockInfo(alarmID: alarmID, problem: next.text, tag: false, unlocked: false)
        case .asks(let ask):
            let how =
                switch (ask.problem, ask.tag) {
                case (let problem?, true): "tap its tag on the reader, or answer: \(problem.text)"
                case (let problem?, false): "answer: \(problem.text)"
                default: "tap its tag on the reader (within 2 minutes)"
                }
            response = Response(message: "to unlock alarm \(ask.alarm.name), \(how)")
            response.unlock = UnlockInfo(
                alarmID: alarmID, problem: ask.problem?.text, tag: ask.tag, unlocked: false)
        case .unlocked(let until):
            let time = controller.view.localTime(until, seconds: true)
            response = Response(
                message: "alarm #\(alarmID) is unlocked until \(time): changes that weaken its next ring are allowed")
            response.unlock = UnlockInfo(alarmID: alarmID, problem: nil, tag: false, unlocked: true, until: time)
        }
        return response
    }

    /// `dismiss --next`: the next ring dismissed before it rings, once its challenge is passed.
    private func dismissNext() throws -> Response {
        guard case .early(let result) = controller.handle(.dismissNextEarly) else {
            throw Refusal(.internal, "no answer to dismiss --next")
        }
        switch result {
        case .success(let record):
            let view = controller.view
            return Response(
                message:
                    "dismissed alarm \(record.settings.name) due at \(view.dueTime(record.scheduledAt)) early: it will not ring. Good morning.",
                payload: .ring(RingReply(session: view.info(record))))
        case .failure(.refused(let refusal)): throw refusal
        case .failure(.needsChallenge(let alarm)):
            var response = Response()
            response.error = ErrorReply(
                code: .challengeFirst,
                message:
                    "to dismiss alarm \(alarm.name) early, pass its challenge first ('reveille unlock \(alarm.id)': its problem or its tag), then dismiss again",
                alarmID: alarm.id)
            return response
        }
    }

    /// The answer to `snooze`, `dismiss` (the problem), `dismiss --answer` or `alarm test`.
    private func response(_ answer: ClockAnswer, for command: Command) throws -> Response {
        let session = try answer.ring.get()
        let view = controller.view
        var ring = RingReply(session: view.info(session))
        var message: String?
        switch command {
        case .snooze:
            let left =
                session.snoozesLeft.map { "\($0) of \(session.settings.maxSnoozes) snoozes left" }
                ?? "unlimited snoozes"
            message =
                "snoozed alarm \(session.settings.name) until \(view.localTime(session.snoozedUntil ?? 0, seconds: true)) (\(left))"
        case .problem:
            ring.problem = session.problem?.text
        case .awake:
            message = "wake-up check of alarm \(session.settings.name) passed. Good morning."
        case .alarmTest:
            message =
                "alarm \(session.settings.name) rings now as a test; stop it as it asks: \(view.info(session).howToDismiss)"
        default:
            guard case .ring(_, let answered?) = answer else {
                throw Refusal(.internal, "an answer without its outcome")
            }
            let outcome = answered
            ring.correct = outcome != .wrong
            switch outcome {
            case .rightWithMoreToGo:
                // Several problems: the alarm's own number, or math standing in for a tag.
                ring.problem = session.problem?.text
                let why = session.fellBackToMath ? " (no NFC reader works, so math stands in for the tag)" : ""
                message = "right; \(session.problemsLeft) more to stop it\(why): \(session.problem?.text ?? "?")"
            case .dismissed:
                if let check = session.wakeCheck {
                    message =
                        "dismissed alarm \(session.settings.name). At \(view.localTime(check.asksAt, seconds: true)) it asks \"Are you up?\": answer with a key, the page, your tag or 'reveille awake' within \(DurationText.format(seconds: check.deadline - check.asksAt)), or it rings again."
                } else {
                    message = "dismissed alarm \(session.settings.name). Good morning."
                }
            case .wrong:
                ring.problem = session.problem?.text
                message = "wrong answer; a new problem: \(session.problem?.text ?? "?")"
            }
        }
        return Response(message: message, payload: .ring(ring))
    }
}
