import ReveilleProtocol

/// wpa_supplicant's control interface in words (wpa_supplicant's "Control interface" docs): the
/// few commands Reveille sends, built from checked values only (a network's name and key go as
/// hex, never as text wpa_supplicant would parse), and what it reads back. Pure: the socket is
/// the daemon's (`SupplicantLink`).
public enum SupplicantCommand: Equatable, Sendable {
    /// Events to this client from now on (`SupplicantEvent`).
    case attach
    case scan
    case scanResults
    case status
    case listNetworks
    case addNetwork
    case setName(id: Int, name: [UInt8])
    case setKey(id: Int, key: [UInt8])
    case setOpen(id: Int)
    /// Probes for the name too: a hidden network is found.
    case setProbe(id: Int)
    /// Joins this network only, the others disabled for now.
    case select(id: Int)
    case enableAll
    case remove(id: Int)
    /// Writes the networks to wpa_supplicant's own file (`update_config=1`).
    case save
    /// The set-up network (`SetupNetwork`): an access point (mode 2) on one channel, WPA2 only.
    case setAccessPoint(id: Int)
    case setFrequency(id: Int, megahertz: Int)
    case setPasswordOnly(id: Int)
    case setRSN(id: Int)
    case setPairwiseCCMP(id: Int)
    case setGroupCCMP(id: Int)

    public var line: String {
        switch self {
        case .attach: "ATTACH"
        case .scan: "SCAN"
        case .scanResults: "SCAN_RESULTS"
        case .status: "STATUS"
        case .listNetworks: "LIST_NETWORKS"
        case .addNetwork: "ADD_NETWORK"
        case .setName(let id, let name): "SET_NETWORK \(id) ssid \(WifiRules.hex(name))"
        case .setKey(let id, let key): "SET_NETWORK \(id) psk \(WifiRules.hex(key))"
        case .setOpen(let id): "SET_NETWORK \(id) key_mgmt NONE"
        case .setProbe(let id): "SET_NETWORK \(id) scan_ssid 1"
        case .select(let id): "SELECT_NETWORK \(id)"
        case .enableAll: "ENABLE_NETWORK all"
        case .remove(let id): "REMOVE_NETWORK \(id)"
        case .save: "SAVE_CONFIG"
        case .setAccessPoint(let id): "SET_NETWORK \(id) mode 2"
        case .setFrequency(let id, let megahertz): "SET_NETWORK \(id) frequency \(megahertz)"
        case .setPasswordOnly(let id): "SET_NETWORK \(id) key_mgmt WPA-PSK"
        case .setRSN(let id): "SET_NETWORK \(id) proto RSN"
        case .setPairwiseCCMP(let id): "SET_NETWORK \(id) pairwise CCMP"
        case .setGroupCCMP(let id): "SET_NETWORK \(id) group CCMP"
        }
    }

    /// Its reply says it was done (`OK`, or a network's id for `ADD_NETWORK`).
    public func succeeded(_ reply: String) -> Bool {
        let reply = reply.trimmingSuffixNewlines
        switch self {
        case .addNetwork: return Int(reply) != nil
        case .scan: return reply == "OK" || reply == "FAIL-BUSY"  // busy: a scan is under way already
        case .scanResults, .status, .listNetworks: return !reply.hasPrefix("FAIL")
        default: return reply == "OK"
        }
    }
}

/// What wpa_supplicant tells an attached client (`<3>CTRL-EVENT-CONNECTED - ...`), the part a join
/// and a scan follow.
public enum SupplicantEvent: Equatable, Sendable {
    case connected(id: Int?)
    case disconnected
    /// A network is set aside for a while after failures; `wrongKey` when its password is wrong.
    case temporarilyDisabled(id: Int?, wrongKey: Bool)
    /// A scan found none of the enabled networks.
    case networkNotFound
    case scanResults
    case scanFailed
    case associationRejected
    /// The set-up network is up (wpa_supplicant's access point), or went down.
    case accessPointEnabled
    case accessPointDisabled
    /// A phone joined the set-up network.
    case stationJoined

    public init?(message: String) {
        var text = Substring(message)
        if text.hasPrefix("<"), let close = text.firstIndex(of: ">") { text = text[text.index(after: close)...] }
        func id(after key: String) -> Int? {
            guard let range = text.firstRange(of: key) else { return nil }
            return Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        if text.hasPrefix("CTRL-EVENT-CONNECTED") {
            self = .connected(id: id(after: "[id="))
        } else if text.hasPrefix("CTRL-EVENT-DISCONNECTED") {
            self = .disconnected
        } else if text.hasPrefix("CTRL-EVENT-SSID-TEMP-DISABLED") {
            // The name is quoted and escaped; the reason comes after it.
            let tail = text.lastIndex(of: "\"").map { text[$0...] } ?? text
            self = .temporarilyDisabled(id: id(after: " id="), wrongKey: tail.contains("reason=WRONG_KEY"))
        } else if text.hasPrefix("CTRL-EVENT-NETWORK-NOT-FOUND") {
            self = .networkNotFound
        } else if text.hasPrefix("CTRL-EVENT-SCAN-RESULTS") {
            self = .scanResults
        } else if text.hasPrefix("CTRL-EVENT-SCAN-FAILED") {
            self = .scanFailed
        } else if text.hasPrefix("CTRL-EVENT-ASSOC-REJECT") {
            self = .associationRejected
        } else if text.hasPrefix("AP-ENABLED") {
            self = .accessPointEnabled
        } else if text.hasPrefix("AP-DISABLED") {
            self = .accessPointDisabled
        } else if text.hasPrefix("AP-STA-CONNECTED") {
            self = .stationJoined
        } else {
            return nil
        }
    }
}

/// Reading wpa_supplicant's answers.
public enum SupplicantReading {
    /// `SCAN_RESULTS`: one entry per name, at its strongest, strongest first; hidden networks
    /// (no name) left out; at most `limit`.
    public static func networks(scanResults text: String, current: String?, limit: Int = 40) -> [HeardNetwork] {
        var strongest: [String: HeardNetwork] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let signal = Int(fields[2]) else { continue }
            let bytes = decode(fields[4])
            guard !bytes.isEmpty, !bytes.allSatisfy({ $0 == 0 }) else { continue }
            let name = String(decoding: bytes, as: UTF8.self)
            let flags = fields[3]
            let locked = ["WPA", "WEP", "RSN", "SAE"].contains { flags.contains($0) }
            let heard = HeardNetwork(
                name: name, signal: signal, locked: locked, enterprise: flags.contains("EAP") && !flags.contains("PSK"),
                current: name == current)
            if let known = strongest[name], known.signal >= signal { continue }
            strongest[name] = heard
        }
        let sorted = strongest.values.sorted { ($0.signal, $1.name) > ($1.signal, $0.name) }
        return Array(sorted.prefix(limit))
    }

    /// `STATUS`: the network the clock is on (`wpa_state=COMPLETED`) and its address.
    public static func joined(status text: String) -> (network: String, address: String?)? {
        var values: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals]] = line[line.index(after: equals)...]
        }
        guard values["wpa_state"] == "COMPLETED", let ssid = values["ssid"] else { return nil }
        return (String(decoding: decode(ssid), as: UTF8.self), values["ip_address"].map(String.init))
    }

    /// `LIST_NETWORKS`: the ids of the networks kept under `name`.
    public static func ids(listNetworks text: String, named name: [UInt8]) -> [Int] {
        text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2, let id = Int(fields[0]), decode(fields[1]) == name else { return nil }
            return id
        }
    }

    /// A name as wpa_supplicant prints it (printf_encode: `\\`, `\"`, `\n`, `\r`, `\t`, `\e` and
    /// `\xNN`), back to its bytes.
    public static func decode(_ text: Substring) -> [UInt8] {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            let byte = input[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < input.count else {
                bytes.append(byte)
                continue
            }
            let escaped = input[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "n"): bytes.append(0x0a)
            case UInt8(ascii: "r"): bytes.append(0x0d)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "e"): bytes.append(0x1b)
            case UInt8(ascii: "x"):
                if index + 1 < input.count, let value = WifiRules.hexBytes(Array(input[index...index + 1])) {
                    bytes.append(contentsOf: value)
                    index += 2
                } else {
                    bytes.append(contentsOf: [UInt8(ascii: "\\"), escaped])
                }
            default: bytes.append(escaped)
            }
        }
        return bytes
    }
}

extension String {
    var trimmingSuffixNewlines: String {
        var text = Substring(self)
        while text.last == "\n" { text = text.dropLast() }
        return String(text)
    }
}

/// A join as it goes, from wpa_supplicant's events: on the network, or why not, in a person's
/// words. The edge feeds it events and the time; it decides.
public struct WifiJoining: Sendable, Equatable {
    public enum Outcome: Equatable, Sendable {
        case joined
        case wrongPassword
        case outOfReach
        case noAnswer
    }

    /// How long a join may take before it is given up.
    public static let patience: Double = 30
    /// Scans in a row that did not hear the network before it is called out of reach.
    public static let scansUnheard = 3

    public let network: String
    /// wpa_supplicant's id for the network being joined.
    public let id: Int
    public let started: Double
    private var unheard = 0

    public init(network: String, id: Int, started: Double) {
        self.network = network
        self.id = id
        self.started = started
    }

    public var deadline: Double { started + Self.patience }

    /// The outcome once `event` is heard, or nil while it goes on.
    public mutating func heard(_ event: SupplicantEvent) -> Outcome? {
        switch event {
        case .connected(let id) where id == nil || id == self.id: return .joined
        case .temporarilyDisabled(let id, true) where id == nil || id == self.id: return .wrongPassword
        case .networkNotFound:
            unheard += 1
            return unheard >= Self.scansUnheard ? .outOfReach : nil
        case .scanResults, .scanFailed, .disconnected, .associationRejected, .connected, .temporarilyDisabled,
            .accessPointEnabled, .accessPointDisabled, .stationJoined:
            return nil
        }
    }

    /// The outcome when `patience` ran out.
    public var timedOut: Outcome { unheard > 0 ? .outOfReach : .noAnswer }

    /// What the screen and the CLI say.
    public static func words(_ outcome: Outcome, network: String) -> String {
        switch outcome {
        case .joined: "joined “\(network)”"
        case .wrongPassword: "wrong password for “\(network)”: check it and type it again"
        case .outOfReach:
            "“\(network)” is out of reach: this clock does not hear it. Move the clock nearer the router, or check the name"
        case .noAnswer:
            "“\(network)” did not let the clock join within \(Int(patience)) seconds; try again (the router may be busy)"
        }
    }

    public static let noAdapter = "no Wi-Fi adapter: this clock has none that works; plug in a network cable"
    public static func noService(_ interface: String) -> String {
        "the Wi-Fi service is not running for \(interface): sudo systemctl enable --now wpa_supplicant@\(interface)"
    }
}
