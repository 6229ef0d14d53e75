import ReveilleCore

/// One response line: `ok` with the request's own payload, or an `error`.
/// `{"v":1,"ok":true,"payload":{"status":{...}}}`; `message` is a line for people, when there is one.
///
/// `ok` is not stored: a response is ok exactly when it carries no error, so the two cannot
/// disagree; a line where they do is refused when read. An error may come with a payload that
/// says more (a `sound test` no device could play lists what each device said).
public struct Response: Codable, Sendable, Equatable {
    public var v: Int = protocolVersion
    public var error: ErrorReply?
    public var message: String?
    /// Things done as asked that may not do what was meant: printed after the message, on
    /// standard error (`warning: alarms are paused until ...`).
    public var warnings: [String]?
    /// What the request asked for: one type per kind of answer.
    public var payload: Payload?

    /// Done as asked: no error.
    public var ok: Bool { error == nil }

    public init(message: String? = nil, payload: Payload? = nil) {
        self.message = message
        self.payload = payload
    }

    public static func failure(_ code: ErrorReply.Code, _ message: String) -> Response {
        var response = Response()
        response.error = ErrorReply(code: code, message: message)
        return response
    }

    private enum CodingKeys: String, CodingKey {
        case v, ok, error, message, warnings, payload
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        v = try container.decode(Int.self, forKey: .v)
        error = try container.decodeIfPresent(ErrorReply.self, forKey: .error)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
        payload = try container.decodeIfPresent(Payload.self, forKey: .payload)
        guard try container.decode(Bool.self, forKey: .ok) == (error == nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: .ok, in: container, debugDescription: "\"ok\" must be true exactly when there is no \"error\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(v, forKey: .v)
        try container.encode(ok, forKey: .ok)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(warnings, forKey: .warnings)
        try container.encodeIfPresent(payload, forKey: .payload)
    }
}

/// The answer to a request, one case per kind of answer.
public enum Payload: Codable, Sendable, Equatable {
    /// `status`.
    case status(StatusInfo)
    /// `alarm list`, and the alarm `alarm add`/`edit`/`enable`/`disable` touched.
    case alarms([AlarmInfo])
    /// `rule list`, and the rule `rule add` made.
    case rules([RuleInfo])
    /// `override list`, and the override `override add` made.
    case overrides([OverrideInfo])
    /// `next`.
    case schedule(ScheduleReport)
    /// `snooze`, `dismiss` and its answers.
    case ring(RingReply)
    case history([HistoryEntry])
    case stats(StatsInfo)
    /// `sound test`: where it plays and what went wrong on the way.
    case playback(PlaybackInfo)
    /// `sound devices`.
    case devices([AudioDevice])
    /// `sound list`: absolute paths.
    case sounds([String])
    /// `tag list`, and the tag registered by `tag add`.
    case tags([Tag])
    /// `tag test`: the tag seen.
    case scan(TagScan)
    /// `apps status` (every app), `apps check` (one), `run` (one, and what to start).
    case apps(AppsReply)
    /// `web pair`, `web devices`, a redeemed code.
    case web(WebReply)
    /// `calendar list`, `calendar add`, `calendar show`.
    case calendars([CalendarInfo])
    case reminders([ReminderInfo])
    /// `unlock`: the alarm's challenge before a change within its commitment, and how it went.
    case unlock(UnlockInfo)
    /// `wifi scan`, `wifi join`: the networks heard and the one joined.
    case wifi(WifiReply)
}

/// The challenge that unlocks an alarm for a change within its commitment (docs/guide/ringing.md, "Commitment").
public struct UnlockInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    /// The problem to answer (a new one after a wrong answer); nil when only a tag unlocks it, or
    /// once it is unlocked.
    public var problem: String?
    /// One of its tags, tapped on the reader, unlocks it too.
    public var tag: Bool
    /// Passed: changes that weaken it are allowed until `until` (local `HH:MM:SS`).
    public var unlocked: Bool
    public var until: String?

    public init(alarmID: Int, problem: String?, tag: Bool, unlocked: Bool, until: String? = nil) {
        self.alarmID = alarmID
        self.problem = problem
        self.tag = tag
        self.unlocked = unlocked
        self.until = until
    }
}

extension Payload {
    private enum Kind: String, CodingKey {
        case status, alarms, rules, overrides, schedule, ring, history, stats, playback, devices, tags, scan, apps, web
        case calendars, reminders, unlock, sounds, wifi
    }

    /// `{"status": {...}}`: the kind as the key, its value as is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .status(let value): try container.encode(value, forKey: .status)
        case .alarms(let value): try container.encode(value, forKey: .alarms)
        case .rules(let value): try container.encode(value, forKey: .rules)
        case .overrides(let value): try container.encode(value, forKey: .overrides)
        case .schedule(let value): try container.encode(value, forKey: .schedule)
        case .ring(let value): try container.encode(value, forKey: .ring)
        case .history(let value): try container.encode(value, forKey: .history)
        case .stats(let value): try container.encode(value, forKey: .stats)
        case .playback(let value): try container.encode(value, forKey: .playback)
        case .devices(let value): try container.encode(value, forKey: .devices)
        case .sounds(let value): try container.encode(value, forKey: .sounds)
        case .tags(let value): try container.encode(value, forKey: .tags)
        case .scan(let value): try container.encode(value, forKey: .scan)
        case .apps(let value): try container.encode(value, forKey: .apps)
        case .web(let value): try container.encode(value, forKey: .web)
        case .calendars(let value): try container.encode(value, forKey: .calendars)
        case .reminders(let value): try container.encode(value, forKey: .reminders)
        case .unlock(let value): try container.encode(value, forKey: .unlock)
        case .wifi(let value): try container.encode(value, forKey: .wifi)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a payload has exactly one kind"))
        }
        switch kind {
        case .status: self = .status(try container.decode(StatusInfo.self, forKey: kind))
        case .alarms: self = .alarms(try container.decode([AlarmInfo].self, forKey: kind))
        case .rules: self = .rules(try container.decode([RuleInfo].self, forKey: kind))
        case .overrides: self = .overrides(try container.decode([OverrideInfo].self, forKey: kind))
        case .schedule: self = .schedule(try container.decode(ScheduleReport.self, forKey: kind))
        case .ring: self = .ring(try container.decode(RingReply.self, forKey: kind))
        case .history: self = .history(try container.decode([HistoryEntry].self, forKey: kind))
        case .stats: self = .stats(try container.decode(StatsInfo.self, forKey: kind))
        case .playback: self = .playback(try container.decode(PlaybackInfo.self, forKey: kind))
        case .devices: self = .devices(try container.decode([AudioDevice].self, forKey: kind))
        case .sounds: self = .sounds(try container.decode([String].self, forKey: kind))
        case .tags: self = .tags(try container.decode([Tag].self, forKey: kind))
        case .scan: self = .scan(try container.decode(TagScan.self, forKey: kind))
        case .apps: self = .apps(try container.decode(AppsReply.self, forKey: kind))
        case .web: self = .web(try container.decode(WebReply.self, forKey: kind))
        case .calendars: self = .calendars(try container.decode([CalendarInfo].self, forKey: kind))
        case .reminders: self = .reminders(try container.decode([ReminderInfo].self, forKey: kind))
        case .unlock: self = .unlock(try container.decode(UnlockInfo.self, forKey: kind))
        case .wifi: self = .wifi(try container.decode(WifiReply.self, forKey: kind))
        }
    }
}

/// Reading a response's payload as the kind a client expects: nil when it is another kind.
extension Response {
    public var status: StatusInfo? {
        get { if case .status(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.status) }
    }
    public var wifi: WifiReply? {
        get { if case .wifi(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.wifi) }
    }
    public var alarms: [AlarmInfo]? {
        get { if case .alarms(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.alarms) }
    }
    public var rules: [RuleInfo]? {
        get { if case .rules(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.rules) }
    }
    public var overrides: [OverrideInfo]? {
        get { if case .overrides(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.overrides) }
    }
    public var schedule: ScheduleReport? {
        get { if case .schedule(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.schedule) }
    }
    public var ring: RingReply? {
        get { if case .ring(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.ring) }
    }
    public var unlock: UnlockInfo? {
        get { if case .unlock(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.unlock) }
    }
    public var session: SessionInfo? { ring?.session }
    public var problem: String? { ring?.problem }
    public var correct: Bool? { ring?.correct }
    public var history: [HistoryEntry]? {
        get { if case .history(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.history) }
    }
    public var stats: StatsInfo? {
        get { if case .stats(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.stats) }
    }
    public var playback: PlaybackInfo? {
        get { if case .playback(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.playback) }
    }
    public var devices: [AudioDevice]? {
        get { if case .devices(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.devices) }
    }
    public var sounds: [String]? {
        get { if case .sounds(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.sounds) }
    }
    public var tags: [Tag]? {
        get { if case .tags(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.tags) }
    }
    public var scan: TagScan? {
        get { if case .scan(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.scan) }
    }
    public var apps: [AppStatusInfo]? {
        if case .apps(let value) = payload { value.apps } else { nil }
    }
    public var appsReply: AppsReply? {
        if case .apps(let value) = payload { value } else { nil }
    }

    public var executable: String? {
        if case .apps(let value) = payload { value.executable } else { nil }
    }
    public var web: WebReply? {
        get { if case .web(let value) = payload { value } else { nil } }
        set { payload = newValue.map { .web($0) } }
    }
    public var calendars: [CalendarInfo]? {
        get { if case .calendars(let value) = payload { value } else { nil } }
        set { payload = newValue.map { .calendars($0) } }
    }
    public var reminders: [ReminderInfo]? {
        get { if case .reminders(let value) = payload { value } else { nil } }
        set { payload = newValue.map { .reminders($0) } }
    }
}

/// Why a request failed, for people (`message`) and for scripts (`code`).
public struct ErrorReply: Codable, Sendable, Equatable {
    public enum Code: String, Codable, Sendable {
        /// Not JSON, or not a request this daemon knows.
        case badRequest = "bad-request"
        /// Longer than `Framing.maxLineBytes`.
        case tooLarge = "too-large"
        case unsupportedVersion = "unsupported-version"
        /// A value out of range: a time, a date, a volume.
        case invalid
        /// No alarm, rule or override with that id.
        case notFound = "not-found"
        /// Collides with something already there: the message names it.
        case conflict
        /// The peer lacks the rights.
        case forbidden
        /// The daemon failed: the message says what, the log says more.
        case `internal`
        case busy
        /// The ring session refuses: nothing rings, no snoozes left, wrong kind of challenge.
        case refused
        /// A device is missing or failing: no audio device could play, no reader answers.
        case unavailable
        /// `alarmID`'s challenge first (`unlock`), then the request again: a change that would
        /// weaken a ring within its commitment, or an early dismissal.
        case challengeFirst = "challenge-first"
    }

    public var code: Code
    public var message: String
    /// With `challengeFirst`: the alarm to unlock.
    public var alarmID: Int?

    public init(code: Code, message: String, alarmID: Int? = nil) {
        self.code = code
        self.message = message
        self.alarmID = alarmID
    }
}
