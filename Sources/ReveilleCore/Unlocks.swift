/// Commitment's unlocks, alarm by alarm (docs/guide/ringing.md, "Commitment"): its challenge
/// asked (a problem to answer, a tap of its tag awaited), or passed and open for changes until a
/// time. A part of `AlarmClock` with its state as one phase per alarm: pure, and told the time.
struct Unlocks: Sendable {
    enum Phase: Sendable, Equatable {
        /// Its challenge was asked: the problem to answer (the same one until it is answered), and
        /// until when a tap of one of its tags is waited for.
        case asked(problem: MathProblem?, tapUntil: Int?)
        /// Its challenge was passed (`by`): changes that weaken its next ring are allowed until `until`.
        case open(until: Int, by: DismissalMethod)
    }

    /// How long a tap is waited for after `unlock` asks for one.
    static let tapSeconds = 120

    private(set) var phases: [Int: Phase] = [:]

    /// Until when alarm `id` is open for changes, while it is.
    func openUntil(_ id: Int, now: Int) -> Int? {
        guard case .open(let until, _) = phases[id], until > now else { return nil }
        return until
    }

    /// How alarm `id`'s open challenge was passed.
    func method(_ id: Int) -> DismissalMethod? {
        guard case .open(_, let by) = phases[id] else { return nil }
        return by
    }

    /// The problem asked to unlock alarm `id`, while it waits for its answer.
    func problem(_ id: Int) -> MathProblem? {
        guard case .asked(let problem, _) = phases[id] else { return nil }
        return problem
    }

    /// Until when a tap of alarm `id`'s tag is waited for.
    func tapUntil(_ id: Int) -> Int? {
        guard case .asked(_, let until) = phases[id] else { return nil }
        return until
    }

    /// The first instant a wait for a tap ends: the machine wakes then to stop the reader polling.
    var nextTapDeadline: Int? { phases.keys.compactMap(tapUntil).min() }

    /// Whether a tap is waited for: the reader must poll.
    var waitsForTap: Bool { nextTapDeadline != nil }

    /// The alarms a tap now would unlock.
    func waitingForTap(now: Int) -> [Int] {
        phases.compactMap { id, phase in
            if case .asked(_, let until?) = phase, until > now { id } else { nil }
        }
    }

    /// Alarm `id`'s challenge asked: `problem` to answer, and a tap waited for until `tapUntil`.
    mutating func ask(_ id: Int, problem: MathProblem?, tapUntil: Int?) {
        phases[id] = .asked(problem: problem, tapUntil: tapUntil)
    }

    /// Alarm `id`'s challenge passed by `method`: open until `until`.
    mutating func open(_ id: Int, until: Int, by method: DismissalMethod) {
        phases[id] = .open(until: until, by: method)
    }

    /// Alarm `id` is closed again (its next ring was dismissed early: the unlock is spent).
    mutating func close(_ id: Int) {
        phases[id] = nil
    }

    /// Unlocks that ran out close; taps waited for too long are no longer waited for (a problem
    /// asked stays asked). True when a wait for a tap ended: the reader may stop polling.
    mutating func expire(now: Int) -> Bool {
        var tapEnded = false
        for (id, phase) in phases {
            switch phase {
            case .open(let until, _) where until <= now: phases[id] = nil
            case .asked(let problem, let tap?) where tap <= now:
                tapEnded = true
                phases[id] = problem.map { .asked(problem: $0, tapUntil: nil) }
            default: break
            }
        }
        return tapEnded
    }
}
