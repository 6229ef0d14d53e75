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
    /// When its last connection ended (nil: none has, since the bridge started); while connected,
    /// `since` says when this one began.
    public var lastConnected: Int?
    /// Why it is not connected.
    public var problem: String?
    /// The daemon's control socket answers the bridge.
    public var daemonUp: Bool
    /// The bridge's process, so that a reader can tell a bridge that stopped without a word
    /// (`kill -9`, out of memory) from one that runs: the file keeps its last state.
    public var pid: Int?
    /// In a household, the code of this machine's key, which the other machines' owners pin.
    public var householdCode: String?
    /// It stopped as asked (SIGTERM, SIGINT), at `since`: not a bridge that died.
    public var stopped: Bool?

    public init(
        broker: String, connected: Bool, since: Int, lastConnected: Int?, problem: String?, daemonUp: Bool,
        pid: Int? = nil
    ) {
        self.pid = pid
        self.broker = broker
        self.connected = connected
        self.since = since
        self.lastConnected = lastConnected
        self.problem = problem
        self.daemonUp = daemonUp
    }

    /// Whether process `pid` runs and is the bridge (`/proc/PID/comm`, which anyone may read).
    public static func bridgeRuns(_ pid: Int) -> Bool {
        guard pid > 0, let name = RegularFile.head("/proc/\(pid)/comm", count: 64) else { return false }
        return String(decoding: name, as: UTF8.self).hasPrefix("reveille-mqtt")
    }

    /// The file at `path`, read as a regular file of at most 4 KiB; nil when missing or unreadable.
    public static func read(_ path: String) -> BridgeHealth? {
        guard let bytes = RegularFile.head(path, count: 4096) else { return nil }
        return try? JSONDecoder().decode(BridgeHealth.self, from: Data(bytes))
    }
}
