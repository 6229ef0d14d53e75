/// A token bucket: `capacity` commands at once, then one per `secondsPerToken`. What the bridge
/// takes from the broker is limited by it, so that a flood of commands costs the daemon little.
public struct TokenBucket: Sendable, Equatable {
    public let capacity: Double
    public let secondsPerToken: Double
    private var tokens: Double
    private var last: Double?

    public init(capacity: Int, secondsPerToken: Double) {
        self.capacity = Double(capacity)
        self.secondsPerToken = secondsPerToken
        self.tokens = Double(capacity)
    }

    /// Takes a token at monotonic `now` (seconds); false when none is left.
    public mutating func take(now: Double) -> Bool {
        if let last { tokens = min(capacity, tokens + max(0, now - last) / secondsPerToken) }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
