/// Trust in the wall clock (docs/guide/recovery.md, "When the clock was wrong"): a jump ahead that
/// nothing has confirmed yet, and what the machine handled or recorded missed under it, which a
/// correction of the clock may judge again. A part of `AlarmClock`, told what the kernel says
/// and what the clocks read.
struct ClockTrust: Sendable {
    /// A forward jump of the wall clock, as the machine knows it.
    enum Jump: Sendable, Equatable {
        /// None seen, or the last one was confirmed (network time, a day of steady running) or
        /// undone by a correction.
        case none
        /// The clock jumped ahead from the wall-clock second `from` (where a clock that turns out
        /// to have been wrong went wrong), at the monotonic reading `at`; not confirmed yet.
        case unconfirmed(from: Int, at: Double)
    }

    var jump = Jump.none
    /// The kernel said at the last look that network time keeps the clock right (adjtimex).
    var synchronized = false
    /// Occurrences handled while the clock was not trusted: a correction may judge them again.
    /// Those handled under a trusted clock never are.
    var untrustedHandled: Set<AlarmClock.Occurrence> = []
    /// The missed records made while the clock was not trusted, by occurrence: a correction that
    /// finds an occurrence still to come withdraws its record (`withdrawMissed`).
    var untrustedMissed: [AlarmClock.Occurrence: Int] = [:]

    /// How long a clock runs steadily after a jump ahead before the jump is taken as right.
    static let confirmedSeconds = 86_400.0

    /// Whether what is judged now stands whatever the clock does later (`AlarmClock.clockTrusted`).
    var trusted: Bool { synchronized || jump == .none }

    /// Where the unconfirmed jump went from, if there is one.
    var jumpedFrom: Int? {
        if case .unconfirmed(let from, _) = jump { from } else { nil }
    }

    /// The jump is confirmed at `monotonic`: by network time, or a day of steady running since it.
    func confirms(at monotonic: Double) -> Bool {
        guard case .unconfirmed(_, let at) = jump else { return false }
        return synchronized || monotonic - at >= Self.confirmedSeconds
    }

    /// The jump is taken as right: what was judged under it stands.
    mutating func confirm() {
        jump = .none
        untrustedHandled = []
        untrustedMissed = [:]
    }
}
