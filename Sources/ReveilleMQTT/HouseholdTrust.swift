import FoundationEssentials
import ReveilleConfig

/// A household message as it travels: one line of JSON saying who signed it (the public key),
/// its number and the signature, a newline, and then the body (the JSON the message always
/// had). The signature covers the topic too, so that a machine's message moved to another
/// machine's topic, or the hub's policy moved to its grants, does not verify.
///
///     {"key":"BASE64","n":1795770000,"sig":"BASE64"}
///     {"day":"2026-11-28","usage":[...]}
public enum HouseholdSeal {
    struct Header: Codable {
        var key: String
        var n: Int
        var sig: String
    }

    /// What a signature covers.
    static func signed(topic: String, n: Int, body: [UInt8]) -> [UInt8] {
        Array("reveille-household 1\n\(topic)\n\(n)\n".utf8) + body
    }

    /// `body`, signed by `key` with the number `n`.
    public static func seal(topic: String, body: String, n: Int, key: HouseholdKey) -> String {
        let signature = key.sign(signed(topic: topic, n: n, body: Array(body.utf8)))
        let header = Header(
            key: Data(key.publicKey).base64EncodedString(), n: n, sig: Data(signature).base64EncodedString())
        return (CanonicalJSON.text(header) ?? "{}") + "\n" + body
    }

    /// A sealed message read and its signature checked: who signed it, its number and its body.
    public struct Opened: Sendable, Equatable {
        public var publicKey: [UInt8]
        public var n: Int
        public var body: [UInt8]
    }

    /// The message on `topic` opened, or why it cannot be (unsigned, malformed, a signature that
    /// does not verify).
    public static func open(topic: String, payload: [UInt8]) -> Result<Opened, Refusal> {
        guard let newline = payload.firstIndex(of: UInt8(ascii: "\n")), newline <= 300,
            let header = try? JSONDecoder().decode(Header.self, from: Data(payload[..<newline]))
        else {
            return .failure(Refusal("not signed"))
        }
        guard let key = Data(base64Encoded: header.key).map(Array.init), key.count == HouseholdKey.size,
            let signature = Data(base64Encoded: header.sig).map(Array.init), signature.count == 64
        else {
            return .failure(Refusal("its signature is malformed"))
        }
        let body = Array(payload[(newline + 1)...])
        guard
            HouseholdKey.verify(
                publicKey: key, message: signed(topic: topic, n: header.n, body: body), signature: signature)
        else {
            return .failure(Refusal("its signature does not verify (changed on the way, or moved from another topic)"))
        }
        return .success(Opened(publicKey: key, n: header.n, body: body))
    }

    public struct Refusal: Error, Sendable, Equatable {
        public let why: String
        init(_ why: String) { self.why = why }
    }
}

/// The numbers a machine signs with: each larger than the last (the wall clock's seconds, or one
/// more than the last when the clock went back a little), so that a receiver can refuse an older
/// message replayed. The hub's are kept on disk by the loop (`last`), a machine's counts' need not be.
///
/// A clock that was wrong once must not leave its numbers in the future: receivers hold a number
/// more than `HouseholdTrust.maxAhead` ahead of their own clock and never take it, so a `last`
/// that far ahead of this machine's clock was taken by no one and is let go.
public struct HouseholdNumbers: Sendable, Equatable {
    public private(set) var last: Int

    public init(last: Int = 0) { self.last = last }

    public mutating func next(wallSeconds: Int) -> Int {
        last = last > wallSeconds + HouseholdTrust.maxAhead ? wallSeconds : max(wallSeconds, last + 1)
        return last
    }
}

/// Which household messages a machine takes: the pure rule, with what it has pinned and seen.
///
/// - The hub takes a machine's counts when they are signed by the key whose code its owner
///   listed for that machine (`[mqtt] machines`), itself included.
/// - A member takes the hub's policy, grants and list of machines when they are signed by the
///   key whose code its owner pinned (`[mqtt] hub_key`), and a machine's counts when they are
///   signed by the key the hub lists for that machine.
/// - Each topic's numbers only go up: a message numbered like one already taken is a repeat (the
///   broker's retained copy, or a replay) and an older one a replay; neither reaches the daemon,
///   nor costs the rate limit a token, however fast they come.
/// - A number is taken (`took`) only once the daemon has what it carried, so that a message the
///   loop could not pass on yet is not counted as passed on.
/// - A number more than `maxAhead` ahead of this machine's clock is held, not taken: a machine
///   whose clock was a year ahead once would otherwise lock its true counts out for that year.
///
/// Anything else (unsigned, signed by another key, a machine no one listed) is dropped, with why.
/// So a broker without ACLs, or anyone on it, cannot lift a limit, grant time, or fill the
/// table of machines with fillers: only listed machines are counted at all.
public struct HouseholdTrust: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// Not one of the household's topics: the model reads it as it is.
        case notHousehold
        /// This machine's own message back.
        case echo
        /// Verified and new: the body goes on to the model; `took(topic:n:)` once the daemon has it.
        case body([UInt8], n: Int)
        /// The hub's list of machines, taken (`changed`: other machines' counts are to be heard again).
        case machines(changed: Bool)
        /// Numbered like the last one taken on its topic: the broker's copy again, or a replay of
        /// the newest. Dropped quietly.
        case repeated
        /// Numbered too far ahead of this machine's clock to be taken now (its sender's clock, or
        /// this one's, is wrong): to be looked at again later, and why.
        case ahead(String)
        /// Dropped, and why (for the log).
        case drop(String)
    }

    /// How far ahead of this machine's clock a number may be, in seconds: household clocks keep
    /// time from the network and agree within seconds; a Pi just booted, before its clock is set,
    /// is behind, and holds what it cannot take yet.
    public static let maxAhead = 600

    public let topics: BridgeTopics
    /// On a member, the code of the hub's key its owner pinned; nil on the hub, or when none is.
    public let hubCode: String?
    /// Whose counts are taken, by machine name, with their keys' codes: on the hub, its own
    /// setting (and itself); on a member, the hub's signed list.
    public private(set) var machines: [String: String]
    /// The largest number taken on each topic.
    public private(set) var seen: [String: Int]
    /// The most machines a hub lists: the daemon's table holds as many.
    public static let maxMachines = 32

    public init(topics: BridgeTopics, hubCode: String?, machines: [String: String], seen: [String: Int] = [:]) {
        self.topics = topics
        self.hubCode = topics.hub ? nil : hubCode
        self.machines = machines
        self.seen = seen
    }

    /// The hub's own topics (policy, grants, machines): what a member keeps the numbers of on disk.
    public func isHubTopic(_ topic: String) -> Bool {
        topic == topics.hubPolicy || topic == topics.hubGrants || topic == topics.hubMachines
    }

    /// The verdict on `payload` received on `topic`, at this machine's wall clock `wallSeconds`.
    public mutating func open(topic: String, payload: [UInt8], wallSeconds: Int) -> Verdict {
        let isHub = isHubTopic(topic)
        let machine = topics.householdUsage("").flatMap { topic.hasPrefix($0) ? String(topic.dropFirst($0.count)) : nil }
        guard isHub || machine != nil else { return .notHousehold }
        if isHub && topics.hub { return .echo }
        if let machine, machine == topics.machine { return .echo }
        let shown = BridgeModel.shown(topic)
        if payload.isEmpty { return .drop("\(shown): cleared") }
        guard payload.count <= BridgeModel.maxCountsBytes else {
            return .drop("a \(payload.count)-byte message on \(shown): more than \(BridgeModel.maxCountsBytes) bytes")
        }
        let opened: HouseholdSeal.Opened
        switch HouseholdSeal.open(topic: topic, payload: payload) {
        case .success(let message): opened = message
        case .failure(let refusal): return .drop("\(shown): \(refusal.why); dropped")
        }
        let code = HouseholdKey.code(of: opened.publicKey)
        if isHub {
            guard let hubCode else {
                return .drop(
                    "\(shown): no hub key is pinned here, so nothing from the household is taken; set hub_key in [mqtt] to the hub's code (reveille-mqtt --household-key on the hub)"
                )
            }
            guard code == hubCode else {
                return .drop("\(shown): signed by the key \(code), not by the hub's pinned key \(hubCode); dropped")
            }
        } else if let machine {
            guard let listed = machines[machine] else {
                return .drop(
                    "\(shown): counts from \(BridgeModel.shown(machine)), a machine the household's hub does not list; dropped"
                )
            }
            guard code == listed else {
                return .drop(
                    "\(shown): signed by the key \(code), not by \(BridgeModel.shown(machine))'s listed key \(listed); dropped"
                )
            }
        }
        if let last = seen[topic], opened.n <= last {
            if opened.n == last { return .repeated }
            return .drop("\(shown): older than one already taken (number \(opened.n) < \(last)), a replay; dropped")
        }
        if opened.n > wallSeconds + Self.maxAhead {
            return .ahead(
                "\(shown): numbered \(opened.n - wallSeconds) s ahead of this machine's clock (a clock is wrong); held until it is not"
            )
        }
        if topic == topics.hubMachines {
            guard let list = try? JSONDecoder().decode(HubMachines.self, from: Data(opened.body)),
                list.machines.count <= Self.maxMachines,
                list.machines.allSatisfy({ TopicName.safe($0.key) == $0.key && HouseholdCode.normalized($0.value) == $0.value })
            else {
                return .drop("\(shown): not a hub's list of machines ({\"hub\": ..., \"machines\": {NAME: CODE}})")
            }
            seen[topic] = opened.n
            let changed = list.machines != machines
            machines = list.machines
            return .machines(changed: changed)
        }
        return .body(opened.body, n: opened.n)
    }

    /// The daemon has what the message numbered `n` on `topic` carried: from now on that number is
    /// a repeat and older ones replays.
    public mutating func took(topic: String, n: Int) {
        seen[topic] = max(seen[topic] ?? n, n)
    }

    /// A daemon that restarted forgot other machines' counts: the newest message on each topic,
    /// which the broker hands back on the next subscription, is to be taken once more (older
    /// ones stay replays).
    public mutating func takeNewestAgain() {
        seen = seen.mapValues { $0 - 1 }
    }

    /// Numbers kept on disk from a sender whose clock was far ahead (taken before numbers were
    /// held): brought back to this machine's clock, so that the true ones that follow are taken.
    public static func sane(_ seen: [String: Int], wallSeconds: Int) -> [String: Int] {
        seen.mapValues { $0 > wallSeconds + maxAhead ? wallSeconds : $0 }
    }
}

/// The hub's list of the household's machines and their keys' codes, itself included:
/// `{"hub": "clock", "machines": {"clock": "7KQ2-…", "laptop": "…"}}`.
public struct HubMachines: Codable, Sendable, Equatable {
    public var hub: String
    public var machines: [String: String]
}
