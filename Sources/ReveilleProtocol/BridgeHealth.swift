import FoundationEssentials
import ReveilleSystem

/// What `reveille-mqtt` writes when its connection to the broker changes, and `reveille doctor`
/// reads: connected or not, since when, and the last time it was.
public struct BridgeHealth: Codable, Sendable, Equatable {
    /// `host:port`.
    public var broker: String
    public var connected: Bool
    /// Seconds since the epoch the state began.
    public var since: Int
    /// When it last was connected (nil: never, since the bridge started).
    public var lastConnected: Int?
    /// Why it is not connected.
    public var problem: String?
    /// The daemon's control socket answers the bridge.
    public var daemonUp: Bool

    public init(broker: String, connected: Bool, since: Int, lastConnected: Int?, problem: String?, daemonUp: Bool) {
        self.broker = broker
        self.connected = connected
        self.since = since
        self.lastConnected = lastConnected
        self.problem = problem
        self.daemonUp = daemonUp
    }

    /// The file at `path`, read as a regular file of at most 4 KiB; nil when missing or unreadable.
    public static func read(_ path: String) -> BridgeHealth? {
        guard let bytes = RegularFile.head(path, count: 4096) else { return nil }
        return try? JSONDecoder().decode(BridgeHealth.self, from: Data(bytes))
    }
}
