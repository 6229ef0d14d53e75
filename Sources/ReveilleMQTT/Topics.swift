import ReveilleSystem

/// The clock's topics under its base (`reveille/HOSTNAME/DEVICE` unless `[mqtt] base_topic` says),
/// and Home Assistant's discovery topics under its prefix.
///
/// Two clocks may share a host name (two Pis left at `raspberrypi`) and a broker user: what tells
/// them apart is the device id each makes once (`device`, 8 hex digits, kept with the bridge's
/// state). It is in Home Assistant's unique ids and device identifiers, in each discovery topic's
/// object id and under the default base, so that neither clock's bridge takes the other's retained
/// messages for its own; the host name stays for people (the device's name) and for the broker's
/// per-machine ACL patterns (`reveille/%u/#`, `homeassistant/+/reveille_%u/#`), which still match.
public struct BridgeTopics: Sendable, Equatable {
    public let base: String
    public let discoveryPrefix: String
    /// The discovery topics' node id: `reveille_kitchen`.
    public let node: String
    /// This machine's device id; nil: the layout before device ids (tests of the topics alone).
    public let device: String?
    /// Home Assistant's device identifier and the unique ids' prefix: `reveille_1a2b3c4d`.
    public let uniquePrefix: String
    /// Where an earlier version kept its retained messages (the base without the device id), to
    /// be cleared once: nil when the base is the owner's own or there is no device id.
    public let legacyBase: String?

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
        hub: Bool = false, device: String? = nil
    ) {
        let safeHost = TopicName.safe(host)
        let device = device.flatMap { DeviceID.isWellFormed($0) ? $0 : nil }
        self.device = device
        self.base = base ?? "reveille/\(safeHost)" + (device.map { "/\($0)" } ?? "")
        self.legacyBase = base == nil && device != nil ? "reveille/\(safeHost)" : nil
        self.discoveryPrefix = discoveryPrefix
        self.node = "reveille_\(safeHost)"
        self.uniquePrefix = device.map { "reveille_\($0)" } ?? "reveille_\(safeHost)"
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
        [masterSet, snoozePress, alarmSetPattern, requestAnswer] + fromHousehold + ownRetained + legacyRetained
    }

    /// Where an earlier version (before device ids) left retained messages of this clock: cleared
    /// once, before this clock's are published, so that Home Assistant's entities keep their ids.
    /// Another clock's topics of the new layout are a level deeper and never match.
    public var legacyRetained: [String] {
        guard let legacyBase else { return [] }
        return [
            legacyBase + "/+", legacyBase + "/alarm/+/enabled", legacyBase + "/alarm/+/attributes",
            legacyBase + "/apps/+/time_left", legacyBase + "/apps/+/requests",
        ]
    }

    /// Whether `topic` is a retained message of the layout before device ids: on `legacyRetained`,
    /// or a discovery config of this node whose object id carries no device id.
    public func isLegacyRetained(_ topic: String) -> Bool {
        if legacyRetained.contains(where: { Self.matches($0, topic) }) {
            // `reveille/HOST/+` is one level: a device id there is a clock of the new layout.
            return !DeviceID.isWellFormed(String(topic.split(separator: "/").last ?? ""))
        }
        guard device != nil, Self.matches("\(discoveryPrefix)/+/\(node)/+/config", topic) else { return false }
        let object = topic.split(separator: "/").dropLast().last.map(String.init) ?? ""
        return !DeviceID.isWellFormed(String(object.prefix(8))) || object.dropFirst(8).first != "_"
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

    /// Whether `topic` is one of `ownRetained`'s: a discovery config only with this device's id
    /// (another clock of the same name has its own).
    public func isOwnRetained(_ topic: String) -> Bool {
        guard ownRetained.contains(where: { Self.matches($0, topic) }) else { return false }
        guard let device, topic.hasPrefix(discoveryPrefix + "/") else { return true }
        let object = topic.split(separator: "/").dropLast().last ?? ""
        return object.hasPrefix(device + "_")
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

    /// `homeassistant/switch/reveille_kitchen/1a2b3c4d_alarm_3/config`.
    public func discovery(_ component: String, _ object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(device.map { "\($0)_" } ?? "")\(object)/config"
    }
}

/// A clock's device id: 8 lowercase hex digits, made at random once and kept in the bridge's state
/// folder (`device-id`), so that it survives restarts and is this machine's alone (a card written
/// from one image makes its own at its first start).
public enum DeviceID {
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 8 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The id kept at `path`, or a new one written there (mode 0644: it is no secret).
    public static func loadOrMake(_ path: String) throws -> String {
        if let bytes = RegularFile.head(path, count: 64) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingSpaces
            if isWellFormed(text) { return text }
        }
        var random = SystemRandomNumberGenerator()
        let digits = String(UInt32.random(in: 0...UInt32.max, using: &random), radix: 16)
        let made = String(repeating: "0", count: 8 - digits.count) + digits
        try RegularFile.replace(path, with: Array((made + "\n").utf8), mode: 0o644, durable: true)
        return made
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
