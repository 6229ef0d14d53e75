/// The clock's topics under its base (`reveille/HOSTNAME` unless `[mqtt] base_topic` says), and
/// Home Assistant's discovery topics under its prefix.
public struct BridgeTopics: Sendable, Equatable {
    public let base: String
    public let discoveryPrefix: String
    /// The device's id in discovery topics and unique ids: `reveille_kitchen`.
    public let node: String

    /// The household's topics, when `[mqtt] household` names one.
    public let household: String?
    /// This machine's name among the household's: its MQTT user name, else its host name (so
    /// that a broker's ACL can let each machine write its own counts only, with `%u`).
    public let machine: String
    /// Whether this machine is the household's hub: it publishes its policy and grants, and the
    /// others follow them.
    public let hub: Bool

    public init(
        base: String?, discoveryPrefix: String, host: String, household: String? = nil, username: String? = nil,
        hub: Bool = false
    ) {
        let safeHost = TopicName.safe(host)
        self.base = base ?? "reveille/\(safeHost)"
        self.discoveryPrefix = discoveryPrefix
        self.node = "reveille_\(safeHost)"
        self.household = household
        self.machine = TopicName.safe(username ?? host)
        self.hub = hub && household != nil
    }

    /// `reveille-household/NAME/hub/policy`, retained: the hub's app policy, which only the hub's
    /// user may write (the broker's ACL).
    public var hubPolicy: String? { household.map { "reveille-household/\($0)/hub/policy" } }
    /// `reveille-household/NAME/hub/grants`, retained: the hub's grants of today.
    public var hubGrants: String? { household.map { "reveille-household/\($0)/hub/grants" } }

    /// `reveille-household/NAME/hub/machines`, retained: the machines the hub lists, with their
    /// keys' codes (`HubMachines`): the members take only their counts.
    public var hubMachines: String? { household.map { "reveille-household/\($0)/hub/machines" } }

    /// `reveille-household/NAME/usage/MACHINE`, retained: a machine's seconds per user and app today.
    public func householdUsage(_ machine: String) -> String? {
        household.map { "reveille-household/\($0)/usage/\(machine)" }
    }

    /// `online` or `offline`, retained; the broker publishes `offline` itself when the bridge is lost.
    public var availability: String { base + "/availability" }
    /// The next ring: `{"at": ISO 8601 or null, "layer": ..., "alarm": ...}`.
    public var nextRing: String { base + "/next_ring" }
    public var ringing: String { base + "/ringing" }
    /// idle, sunrise, ringing, snoozed or checking.
    public var ringState: String { base + "/ring_state" }
    public var master: String { base + "/master" }
    public var masterSet: String { base + "/master/set" }
    public var snoozePress: String { base + "/snooze/press" }
    /// What happened, not retained: `{"event_type": "fired", ...}`.
    public var event: String { base + "/event" }
    public func alarmEnabled(_ id: Int) -> String { base + "/alarm/\(id)/enabled" }
    public func alarmSet(_ id: Int) -> String { base + "/alarm/\(id)/set" }
    /// An alarm's time, repeat and every setting (`Alarm.settings`, by key), retained: its
    /// switch's attributes in Home Assistant.
    public func alarmAttributes(_ id: Int) -> String { base + "/alarm/\(id)/attributes" }
    public var alarmSetPattern: String { base + "/alarm/+/set" }
    public func timeLeft(_ user: String) -> String { base + "/apps/\(TopicName.safe(user))/time_left" }
    public func requests(_ user: String) -> String { base + "/apps/\(TopicName.safe(user))/requests" }
    /// `{"id": 3, "approve": true}`: answers a request for more time, with `[mqtt] approvals = true`.
    public var requestAnswer: String { base + "/apps/answer" }

    /// Every topic the bridge listens to.
    public var subscriptions: [String] {
        [masterSet, snoozePress, alarmSetPattern, requestAnswer] + fromHousehold + ownRetained
    }

    /// Where the bridge's own retained messages live (discovery, each alarm's switch, each
    /// person's app time): the broker hands back what an earlier run left there, and what the
    /// clock no longer has (an alarm removed while the bridge or the broker was down) is cleared.
    public var ownRetained: [String] {
        [
            "\(discoveryPrefix)/+/\(node)/+/config", base + "/alarm/+/enabled", base + "/alarm/+/attributes",
            base + "/apps/+/time_left",
            base + "/apps/+/requests",
        ]
    }

    /// Whether `topic` is one of `ownRetained`'s.
    public func isOwnRetained(_ topic: String) -> Bool {
        ownRetained.contains { Self.matches($0, topic) }
    }

    /// MQTT's match of a filter with `+` (one level) against a topic.
    static func matches(_ filter: String, _ topic: String) -> Bool {
        let want = filter.split(separator: "/", omittingEmptySubsequences: false)
        let have = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return false }
        return zip(want, have).allSatisfy { $0 == "+" ? !$1.isEmpty : $0 == $1 }
    }

    /// The household's retained topics the daemon keeps what it hears from: the other machines'
    /// counts and, on a member, the hub's policy and grants. Subscribed again when the daemon
    /// comes back, so that the broker gives them again.
    public var fromHousehold: [String] {
        [householdUsage("+")].compactMap { $0 } + (hub ? [] : [hubMachines, hubPolicy, hubGrants].compactMap { $0 })
    }

    /// Whether `topic` is one of the household's that this machine publishes signed: its counts
    /// and, on the hub, its policy, grants and list of machines.
    public func isSignedHousehold(_ topic: String) -> Bool {
        topic == householdUsage(machine) || (hub && (topic == hubPolicy || topic == hubGrants || topic == hubMachines))
    }

    /// `homeassistant/switch/reveille_kitchen/alarm_3/config`.
    public func discovery(_ component: String, _ object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(object)/config"
    }
}

/// A name made safe for one level of a topic and for Home Assistant's ids.
public enum TopicName {
    /// Letters, digits, `_` and `-` are kept (ASCII only); anything else (`/`, `+`, `#`, spaces,
    /// non-ASCII) becomes `_`, and a name that changed gets a short hash of the original, so that
    /// two names cannot meet in one topic. At most 48 characters; never empty.
    public static func safe(_ name: String) -> String {
        let kept = String(
            name.unicodeScalars.prefix(40).map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                        || scalar == "-")
                    ? Character(scalar) : "_"
            })
        if kept == name && !name.isEmpty { return name }
        return (kept.isEmpty ? "_" : kept) + "-" + hash(name)
    }

    /// FNV-1a, 32 bits, as 8 hex digits: stable across runs and machines (Swift's own hash is not).
    static func hash(_ name: String) -> String {
        var value: UInt32 = 2_166_136_261
        for byte in name.utf8 {
            value ^= UInt32(byte)
            value = value &* 16_777_619
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
