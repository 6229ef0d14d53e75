import ReveilleCore

// `watch`: the events streamed to watchers, a line each.

/// One line of `reveille status --watch` (and, later, what the buttons and the screen follow):
/// a change as it happens, streamed after a `watch` request.
public enum WatchEvent: Codable, Sendable, Equatable {
    /// A session rang, was snoozed, rang again, changed its challenge, or ended.
    case session(SessionInfo)
    /// An occurrence was recorded as missed.
    case missed(MissedInfo)
    /// The wake-up check asks "Are you up?", was answered, or failed.
    case wakeCheck(WakeCheckInfo)
    /// The sunrise before a ring began (nil: it ended).
    case sunrise(SunriseInfo?)
    /// An alarm rings and no sound device works (true), or one does again (false).
    case silent(Bool)
    /// The next ring moved (nil: none ahead).
    case nextRing(RingInfo?)
    /// A tag lies on the reader during a session (it must be lifted, then tapped), or was lifted.
    case tagOnReader(Bool)
    case readerHealth(ReaderState)
    /// apps.toml was refused; the policy in force is kept.
    case policyRejected(String)
    /// A button or keypad appeared, went away, or cannot be opened.
    case input(InputState)
    /// Alarms, rules, overrides or the master switch changed (the next ring may not have moved):
    /// what shows the schedule reads it again.
    case schedule
    /// A reminder chimed.
    case reminder(ChimeInfo)
    /// A date override was removed because its day became a holiday of the alarm it names.
    case overrideRemoved(RemovedOverride)
    /// The app policy changed (from the page, the CLI or apps.toml): its new revision.
    case appPolicy(Int)
    /// A user's app runs out of time soon, or was refused (heard by that user's notifier).
    case appNotice(AppNotice)
    /// A request for more time was made or answered.
    case appRequest(AppRequestInfo)
    /// A limited app began or stopped running: its time is counted meanwhile (what follows time
    /// left, as the MQTT bridge, reads again while something runs).
    case appRunning(AppRunning)
    /// Minutes were granted today (`apps grant`, an approval, or the household's hub): what shows
    /// time left, as the MQTT bridge, reads again.
    case appGranted(AppGranted)
    /// The machine's network came or went (nil: networkd no longer says).
    case network(NetworkInfo?)
    /// A bedside key was pressed while nothing rang: the screen wakes (its page ends its night's
    /// black screen, and the backlight follows).
    case screenWake
}

/// `app`'s minutes granted today in all, to `user` (nil: every user of the app).
public struct AppGranted: Codable, Sendable, Equatable {
    public var app: String
    public var user: String?
    public var minutes: Int

    public init(app: String, user: String?, minutes: Int) {
        self.app = app
        self.user = user
        self.minutes = minutes
    }
}

/// A limited app of `user` runs now (`running`), or ended.
public struct AppRunning: Codable, Sendable, Equatable {
    public var user: String
    public var app: String
    public var running: Bool

    public init(user: String, app: String, running: Bool) {
        self.user = user
        self.app = app
        self.running = running
    }
}

extension WatchEvent {
    /// The user an event is about, for a watcher who may hear only their own: nil for events
    /// about the household, which such a watcher does not hear.
    public var user: String? {
        switch self {
        case .appNotice(let notice): notice.user
        case .appRequest(let request): request.user
        case .reminder(let chime): chime.user
        case .appRunning(let running): running.user
        case .appGranted(let granted): granted.user
        default: nil
        }
    }
}

/// An override a holiday made pointless, and the holiday.
public struct RemovedOverride: Codable, Sendable, Equatable {
    public var override: OverrideInfo
    public var holiday: String

    public init(override: OverrideInfo, holiday: String) {
        self.override = override
        self.holiday = holiday
    }
}

extension WatchEvent {
    private enum Kind: String, CodingKey {
        case session, missed, wakeCheck, sunrise, silent, nextRing, tagOnReader, readerHealth, policyRejected, input,
            schedule,
            reminder
        case overrideRemoved, appPolicy, appNotice, appRequest, appRunning, appGranted, network, screenWake
    }

    /// `{"session": {...}}`, `{"nextRing": null}`, `{"tagOnReader": true}`: the kind as the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .session(let value): try container.encode(value, forKey: .session)
        case .missed(let value): try container.encode(value, forKey: .missed)
        case .wakeCheck(let value): try container.encode(value, forKey: .wakeCheck)
        case .silent(let value): try container.encode(value, forKey: .silent)
        case .sunrise(let value):
            if let value {
                try container.encode(value, forKey: .sunrise)
            } else {
                try container.encodeNil(forKey: .sunrise)
            }
        case .nextRing(let value): try container.encode(value, forKey: .nextRing)
        case .tagOnReader(let value): try container.encode(value, forKey: .tagOnReader)
        case .readerHealth(let value): try container.encode(value, forKey: .readerHealth)
        case .policyRejected(let value): try container.encode(value, forKey: .policyRejected)
        case .input(let value): try container.encode(value, forKey: .input)
        case .schedule: try container.encode(true, forKey: .schedule)
        case .screenWake: try container.encode(true, forKey: .screenWake)
        case .reminder(let value): try container.encode(value, forKey: .reminder)
        case .overrideRemoved(let value): try container.encode(value, forKey: .overrideRemoved)
        case .appPolicy(let value): try container.encode(value, forKey: .appPolicy)
        case .appNotice(let value): try container.encode(value, forKey: .appNotice)
        case .appRequest(let value): try container.encode(value, forKey: .appRequest)
        case .appRunning(let value): try container.encode(value, forKey: .appRunning)
        case .appGranted(let value): try container.encode(value, forKey: .appGranted)
        case .network(let value):
            if let value {
                try container.encode(value, forKey: .network)
            } else {
                try container.encodeNil(forKey: .network)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no event"))
        }
        switch kind {
        case .session: self = .session(try container.decode(SessionInfo.self, forKey: kind))
        case .missed: self = .missed(try container.decode(MissedInfo.self, forKey: kind))
        case .wakeCheck: self = .wakeCheck(try container.decode(WakeCheckInfo.self, forKey: kind))
        case .silent: self = .silent(try container.decode(Bool.self, forKey: kind))
        case .sunrise: self = .sunrise(try container.decodeIfPresent(SunriseInfo.self, forKey: kind))
        case .nextRing: self = .nextRing(try container.decodeIfPresent(RingInfo.self, forKey: kind))
        case .tagOnReader: self = .tagOnReader(try container.decode(Bool.self, forKey: kind))
        case .readerHealth: self = .readerHealth(try container.decode(ReaderState.self, forKey: kind))
        case .policyRejected: self = .policyRejected(try container.decode(String.self, forKey: kind))
        case .input: self = .input(try container.decode(InputState.self, forKey: kind))
        case .schedule: self = .schedule
        case .screenWake: self = .screenWake
        case .reminder: self = .reminder(try container.decode(ChimeInfo.self, forKey: kind))
        case .overrideRemoved: self = .overrideRemoved(try container.decode(RemovedOverride.self, forKey: kind))
        case .appPolicy: self = .appPolicy(try container.decode(Int.self, forKey: kind))
        case .appNotice: self = .appNotice(try container.decode(AppNotice.self, forKey: kind))
        case .appRequest: self = .appRequest(try container.decode(AppRequestInfo.self, forKey: kind))
        case .appRunning: self = .appRunning(try container.decode(AppRunning.self, forKey: kind))
        case .appGranted: self = .appGranted(try container.decode(AppGranted.self, forKey: kind))
        case .network: self = .network(try container.decodeIfPresent(NetworkInfo.self, forKey: kind))
        }
    }
}

/// A line of a `watch` stream, after its first `ok` response.
public struct WatchLine: Codable, Sendable, Equatable {
    public var v: Int = protocolVersion
    public var event: WatchEvent
    /// When it happened on the daemon's wall clock, `HH:MM:SS` in its time zone (the zone every
    /// other time in the event is in, whatever the watcher's own).
    public var at: String?
    /// The same instant, in seconds since the epoch: what a watcher in another zone (Home
    /// Assistant) shows with its date and offset.
    public var instant: Int?

    public init(_ event: WatchEvent, at: String? = nil, instant: Int? = nil) {
        self.event = event
        self.at = at
        self.instant = instant
    }
}
