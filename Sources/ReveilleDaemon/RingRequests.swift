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
        let reply: ClockReply
        switch request.command {
        case .snooze: reply = controller.send { $0.snooze(now: $1) }
        case .problem: reply = controller.send { $0.requestProblem(now: $1) }
        case .answer(let value): reply = controller.send { $0.answer(value, now: $1) }
        case .awake:
            let by = request.device.map { "the page (\($0))" } ?? (request.relayed ? "the page" : "reveille awake")
            reply = controller.send { $0.confirmAwake(now: $1, by: by) }
        case .alarmTest(let id):
            controller.tick()  // what is due by the schedule rings first
            reply = controller.send { $0.test(id, now: $1) }
        default: throw misrouted(request.command)
        }
        return .answer(try response(reply, for: request.command))
    }

    /// The answer to `snooze`, `dismiss` (the problem), `dismiss --answer` or `alarm test`.
    private func response(_ reply: ClockReply, for command: Command) throws -> Response {
        let session = try reply.result.get()
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
            let correct = session.state == .dismissed
            ring.correct = correct
            if correct, let check = session.wakeCheck {
                message =
                    "dismissed alarm \(session.settings.name). At \(view.localTime(check.asksAt, seconds: true)) it asks \"Are you up?\": answer with a key, the page, your tag or 'reveille awake' within \(DurationText.format(seconds: check.deadline - check.asksAt)), or it rings again."
            } else if correct {
                message = "dismissed alarm \(session.settings.name). Good morning."
            } else {
                ring.problem = session.problem?.text
                message = "wrong answer; a new problem: \(session.problem?.text ?? "?")"
            }
        }
        return Response(message: message, payload: .ring(ring))
    }
}
