import ReveilleProtocol

/// Who a browser is, and what the page may ask the daemon for: the decisions of `reveille-web`,
/// kept apart from HTTP so tests can check them one by one.
public enum WebClient: Equatable, Sendable {
    /// On this machine (the kiosk), not paired: the household's rights (see, snooze, answer).
    case loopback
    /// Paired with `reveille web pair`: the device's rights, as the daemon keeps them.
    case paired(token: String)
    /// Elsewhere on the network and not paired: only the pairing form.
    case stranger

    /// From the connection's address and the device cookie, if any.
    public init(remoteIsLoopback: Bool, token: String?) {
        if let token, WebClient.isWellFormed(token) {
            self = .paired(token: token)
        } else {
            self = remoteIsLoopback ? .loopback : .stranger
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
        case .loopback: Request(operation, cap: .user)
        case .paired(let token): Request(operation, cap: .admin, device: token)
        case .stranger: nil
        }
    }
}

/// The commands the page may send through `POST /api/command`. Not: following (the page has
/// `/events`), `run` (it would follow the web server's own process), pairing (the CLI's, as root),
/// waiting for a tap or playing a test sound (both hold the daemon's reply for seconds), and adding
/// or removing calendars (a path on the clock's own disk: the CLI's). Reminders, yes, but not
/// their `--unless` command (a shell command: the CLI's, from someone at the clock) or sound file.
public enum RelayPolicy {
    public static func allows(_ operation: Command) -> Bool {
        switch operation {
        case .status, .alarmList, .alarmAdd, .alarmEdit, .alarmRemove, .alarmSetEnabled, .ruleList, .ruleAdd,
            .ruleRemove, .ruleEdit, .overrideList, .overrideAdd, .overrideRemove, .overrideEdit, .pause, .resume,
            .next, .snooze, .problem, .answer, .history, .stats, .soundStop, .alarmTest, .tagList, .tagRemove,
            .appsStatus, .appCheck, .appGrant, .calendarList, .calendarShow, .reminderList, .reminderRemove:
            true
        case .tagAdd(_, let uid, _): uid != nil
        case .reminderAdd(let spec), .reminderEdit(_, let spec): spec.unless == nil && spec.sound == nil
        case .soundTest, .soundDevices, .tagTest, .appStart, .watch, .webPair, .webRedeem, .webDevices, .webUnpair,
            .calendarAdd, .calendarRemove:
            false
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

/// Pairing attempts per address and in all, over a sliding window: a code cannot be guessed by
/// trying, and one noisy device cannot lock the others out for long.
public struct PairingLimiter: Sendable {
    public let perAddress: Int
    public let total: Int
    public let windowSeconds: Double
    private var attempts: [(address: String, at: Double)] = []

    public init(perAddress: Int = 5, total: Int = 20, windowSeconds: Double = 600) {
        self.perAddress = perAddress
        self.total = total
        self.windowSeconds = windowSeconds
    }

    /// Counts an attempt from `address` at `now` (monotonic seconds): nil if it may go on, else the
    /// seconds until it may.
    public mutating func attempt(from address: String, at now: Double) -> Int? {
        attempts.removeAll { $0.at <= now - windowSeconds }
        let mine = attempts.filter { $0.address == address }
        if mine.count >= perAddress { return Int((mine[0].at + windowSeconds - now).rounded(.up)) }
        if attempts.count >= total { return Int((attempts[0].at + windowSeconds - now).rounded(.up)) }
        attempts.append((address, now))
        return nil
    }
}
