import ReveilleCore

extension Command {
    /// The command's own numbers against their ranges, checked once when a request comes in,
    /// before any handler sees it (`Requests.serve`); the words name the option and its range.
    /// The alarm's settings are checked by their declarations (`Alarm.settings`).
    public func checkRanges() throws(InputError) {
        switch self {
        case .next(let days), .history(let days), .stats(let days):
            try Self.check(days, in: 1...3660, "--days \(days): must be 1-3660")
        case .calendarShow(_, let days):
            try Self.check(
                days, in: 1...CalendarSpan.days,
                "--days \(days): must be 1-\(CalendarSpan.days) (calendars are read two years ahead)")
        case .soundTest(_, _, let seconds, let volume):
            try Self.check(seconds, in: 1...300, "--seconds \(seconds): must be 1-300")
            if let volume { try Self.check(volume, in: 0...100, "--volume \(volume): must be 0-100") }
        // A tag given by its UID waits for no tap: its timeout is not used (the page sends 0).
        case .tagAdd(_, nil, let timeout), .tagTest(let timeout):
            try Self.check(timeout, in: 1...300, "--timeout \(timeout): must be 1-300 seconds")
        case .appGrant(_, let minutes, _, _):
            try Self.check(minutes, in: 1...720, "--minutes \(minutes): must be 1-720")
        case .webServing(let port):
            try Self.check(port, in: 1...65_535, "port \(port): must be 1-65535")
        default: break
        }
    }

    private static func check(_ value: Int, in range: ClosedRange<Int>, _ words: String) throws(InputError) {
        guard range.contains(value) else { throw InputError(words) }
    }
}
