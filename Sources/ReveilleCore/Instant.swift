/// One reading of the clocks, taken together, with which every event reaches the machine: the wall
/// clock alarms are set by (seconds since the epoch; network time or `date -s` may step it) and the
/// time that passed (seconds on CLOCK_BOOTTIME, which no step moves). The machine tells a step of
/// the wall clock from time passing by comparing two readings; a test's manual clock moves both.
public struct Instant: Sendable, Equatable {
    public var wall: Double
    public var monotonic: Double

    public init(wall: Double, monotonic: Double) {
        self.wall = wall
        self.monotonic = monotonic
    }

    /// The wall clock's whole second: what the schedule's instants are counted in.
    public var second: Int { Int(wall.rounded(.down)) }
}
