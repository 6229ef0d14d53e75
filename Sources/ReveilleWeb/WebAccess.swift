import ReveilleProtocol

/// Who a browser is, and what the page may ask the daemon for: the decisions of `reveille-web`,
/// kept apart from HTTP so tests can check them one by one.
public enum WebClient: Equatable, Sendable {
    /// The kiosk: a browser on this machine, of the kiosk's own user (`[web] kiosk_user`), not
    /// paired: the household's rights (see, snooze, answer).
    case kiosk
    /// Paired with `reveille web pair`: the device's rights, as the daemon keeps them.
    case paired(token: String)
    /// Anyone else not paired, another local user on loopback too: only the pairing form.
    case stranger

    /// From the device cookie, if any, and else whether the connection is the kiosk's (asked
    /// only then: it reads the kernel's table of sockets, `LoopbackPeer`).
    public init(token: String?, isKiosk: @autoclosure () -> Bool) {
        if let token, WebClient.isWellFormed(token) {
            self = .paired(token: token)
        } else {
            self = isKiosk() ? .kiosk : .stranger
        }
    }

    /// A token is 64 hex digits; anything else in the cookie is ignored.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// How a request relayed for this browser is sent: with its device token, or capped at the
    /// household's rights. nil: nothing is relayed.
    public func relay(_ operation: Command) -> Request? {
        switch self {
        case .kiosk: Request(operation, cap: .user)
        case .paired(let token): Request(operation, cap: .admin, device: token)
        case .stranger: nil
        }
    }
}

/// The commands the page may send through `POST /api/command`. Not: following (the page has
/// `/events`), `run` (it would follow the web server's own process), pairing (the CLI's, as root),
/// a test sound on a named device or for long, and a calendar from a file (a path on the clock's
/// own disk: the CLI's);
/// a calendar by its web address, yes. Registering a tag by its tap holds the reply until the tap
/// (at most `tagWaitSeconds`): it is relayed on a thread of its own, one at a time
/// (`WebServer.command`). Reminders, yes, with a sound as alarms have, but not their `--unless`
/// command (a shell command: the CLI's, from someone at the clock). Asking for more time, yes:
/// the daemon takes it only from a phone paired for a child, as that child.
public enum RelayPolicy {
    public static func allows(_ operation: Command) -> Bool {
        switch operation {
        case .status, .alarmList, .alarmAdd, .alarmEdit, .alarmRemove, .alarmSetEnabled, .ruleList, .ruleAdd,
            .ruleRemove, .ruleEdit, .overrideList, .overrideAdd, .overrideRemove, .overrideEdit, .pause, .resume,
            .next, .snooze, .awake, .unlock, .dismissNext, .problem, .answer, .history, .stats, .soundStop, .alarmTest,
            .tagList,
            .tagRemove,
            .soundList,
            .appsStatus, .appsOverview, .appCheck, .appGrant, .appList, .appPut, .appRemove, .appRequests, .appCatalog,
            .appAnswer, .appAsk, .calendarList, .calendarShow, .calendarRemove, .calendarFetchNow, .reminderList,
            .chimeAgain,
            .reminderRemove,
            .remindersSwitch, .firstSetup, .wifiScan, .wifiJoin, .screenLight:
            true
        case .tagAdd(_, let uid, let seconds): uid != nil || (1...tagWaitSeconds).contains(seconds)
        // A reminder calendar's sounds, as an alarm's: files the daemon finds public.
        case .calendarAdd(_, let source, _, _, _, _, _, _, _):
            source.hasPrefix("https://") || source.hasPrefix("http://")
        // A reminder's sound, as an alarm's: a file the daemon finds public (`PublicFile`).
        case .reminderAdd(let spec), .reminderEdit(_, let spec): spec.unless == nil
        // A sound heard from the page: a file of the list, on the configured devices, a few seconds.
        case .soundTest(_, let device, let seconds, _): device == nil && (1...5).contains(seconds)
        // The household's counts and its hub's policy are reveille-mqtt's to pass on, never a browser's.
        case .soundDevices, .tagTest, .appStart, .appExport, .watch, .webPair, .webRedeem,
            .webDevices, .webUnpair,
            .webServing, .appsHousehold, .appsFromHub:
            false
        }
    }

    /// The longest a page may wait for a tag's tap.
    public static let tagWaitSeconds = 30

    /// Whether the daemon holds its reply to `operation` until something happens (a tap).
    public static func waits(_ operation: Command) -> Bool {
        switch operation {
        // A Wi-Fi scan takes seconds, and a join until the clock is on the network (`WifiJoining`).
        case .tagAdd(_, nil, _), .soundTest, .wifiScan, .wifiJoin: true
        default: false
        }
    }
}

/// Cross-site request forgery: every change carries the page's secret in a header, which a page
/// of another site can neither read nor send; a request whose `Origin` is another host is refused
/// too.
public struct CSRFGuard: Sendable {
    public static let header = "X-Reveille-CSRF"
    public let secret: String

    public init(secret: String) {
        self.secret = secret
    }

    /// nil when the request may go on, else why not.
    public func refusal(token: String?, origin: String?, host: String?) -> String? {
        guard let token, token == secret else {
            return "this request lacks the page's CSRF token; reload the page and try again"
        }
        if let origin, origin != "null", let host {
            let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
            guard originHost.map(String.init) == host else {
                return "this request came from another site (\(origin)); it is refused"
            }
        }
        return nil
    }
}

/// Wrong pairing codes per address over a sliding window: a code cannot be guessed by trying,
/// and a guesser cannot turn the limit against anyone else. All of loopback counts as one address
/// (127.0.0.0/8 would otherwise give a local guesser sixteen million), and so does an IPv6 /64;
/// a right code is never counted, and no one address's guesses hold off another's.
public struct PairingLimiter: Sendable {
    public let perAddress: Int
    public let windowSeconds: Double
    private var wrong: [(address: String, at: Double)] = []

    public init(perAddress: Int = 5, windowSeconds: Double = 600) {
        self.perAddress = perAddress
        self.windowSeconds = windowSeconds
    }

    /// nil if `address` may try a code at `now` (monotonic seconds), else the seconds until it may.
    public mutating func wait(for address: String, at now: Double) -> Int? {
        wrong.removeAll { $0.at <= now - windowSeconds }
        let key = Self.key(address)
        let mine = wrong.filter { $0.address == key }
        guard mine.count >= perAddress else { return nil }
        return Int((mine[0].at + windowSeconds - now).rounded(.up))
    }

    /// Counts a wrong code from `address`.
    public mutating func wrongCode(from address: String, at now: Double) {
        wrong.append((Self.key(address), now))
    }

    /// What an address counts as: `loopback`, an IPv6 /64 prefix, or the IPv4 address itself.
    static func key(_ address: String) -> String {
        if address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.") { return "loopback" }
        if address.contains(":") {
            let groups = address.split(separator: ":", omittingEmptySubsequences: false).prefix(4)
            return groups.joined(separator: ":") + "::/64"
        }
        return address
    }
}

/// DNS rebinding: a page on `evil.example` whose name then resolves to 127.0.0.1 reaches the
/// kiosk's rights with `Host: evil.example`. Only names that cannot be an attacker's are served:
/// IP literals (an attacker's page cannot send another site's literal as its Host), `localhost`,
/// this machine's host name (and `.local`, as mDNS serves it), and the names in `[web] hosts`.
public struct HostCheck: Sendable {
    public let names: Set<String>

    public init(hostName: String, extra: [String] = []) {
        let host = hostName.lowercased()
        names = Set(["localhost", host, host + ".local"] + extra.map { $0.lowercased() })
    }

    /// Whether a `Host` header value (with or without a port) may be served.
    public func allows(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return false }
        var name = header.lowercased()
        if name.hasPrefix("[") {
            // [v6]:port
            guard let end = name.firstIndex(of: "]") else { return false }
            let inner = name[name.index(after: name.startIndex)..<end]
            return !inner.isEmpty && inner.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            name = String(name[..<colon])
        }
        if name.hasSuffix(".") { name.removeLast() }
        if Self.isIPv4(name) { return true }
        return names.contains(name)
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isNumber) && Int(part)! <= 255
            }
    }
}
