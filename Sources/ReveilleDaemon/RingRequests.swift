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
        case .unlock(let alarmID, let answer): return .answer(try unlock(alarmID, answer: answer))
        case .dismissNext: return .answer(try dismissNext())
        case .snooze: reply = controller.send { $0.snooze(now: $1) }
        case .problem: reply = controller.send { $0.requestProblem(now: $1) }
        case .answer(let value):
            // A wrong answer is counted: an answer that counted none and did not dismiss was right.
            let wrongBefore = controller.machine.session?.wrongAnswers ?? 0
            reply = controller.send { $0.answer(value, now: $1) }
            return .answer(try response(reply, for: request.command, wrongBefore: wrongBefore))
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

    /// `unlock`: the alarm's challenge (its problem, or a tap of its tag), or an answer to it.
    private func unlock(_ alarmID: Int, answer: Int?) throws -> Response {
        let now = controller.nowSeconds()
        if let answer {
            let result = controller.send { $0.unlockAnswer(for: alarmID, value: answer, now: $1) }
            if let next = try result.get() {
                var response = Response(message: "wrong answer; a new problem: \(next.text)")
                response.unlock = UnlockInfo(alarmID: alarmID, problem: next.text, tag: false, unlocked: false)
                return response
            }
            return unlocked(alarmID, now: now)
        }
        if controller.machine.isUnlocked(alarmID, now: now) { return unlocked(alarmID, now: now) }
        let ask = try controller.send { $0.unlockChallenge(for: alarmID, now: $1) }.get()
        let how =
            switch (ask.problem, ask.tag) {
            case (let problem?, true): "tap its tag on the reader, or answer: \(problem.text)"
            case (let problem?, false): "answer: \(problem.text)"
            default: "tap its tag on the reader (within 2 minutes)"
            }
        var response = Response(message: "to unlock alarm \(ask.alarm.name), \(how)")
        response.unlock = UnlockInfo(alarmID: alarmID, problem: ask.problem?.text, tag: ask.tag, unlocked: false)
        return response
    }

    /// `dismiss --next`: the next ring dismissed before it rings, once its challenge is passed.
    private func dismissNext() throws -> Response {
        switch controller.send({ $0.dismissNextEarly(now: $1) }) {
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

    private func unlocked(_ alarmID: Int, now: Int) -> Response {
        let until = controller.machine.unlockedUntil[alarmID] ?? now
        let time = controller.view.localTime(until, seconds: true)
        var response = Response(
            message: "alarm #\(alarmID) is unlocked until \(time): changes that weaken its next ring are allowed")
        response.unlock = UnlockInfo(alarmID: alarmID, problem: nil, tag: false, unlocked: true, until: time)
        return response
    }

    /// The answer to `snooze`, `dismiss` (the problem), `dismiss --answer` or `alarm test`.
    private func response(_ reply: ClockReply, for command: Command, wrongBefore: Int = 0) throws -> Response {
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
            let outcome = session.answerOutcome(wrongBefore: wrongBefore)
            ring.correct = outcome != .wrong
            switch outcome {
            case .rightWithMoreToGo:
                // Math stands in for a tag.
                ring.problem = session.problem?.text
                message =
                    "right; \(session.problemsLeft) more to stop it (no NFC reader works, so math stands in for the tag): \(session.problem?.text ?? "?")"
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
