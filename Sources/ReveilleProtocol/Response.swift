import ReveilleCore

/// One response line: `ok` with the request's own payload, or an `error`.
/// `{"v":1,"ok":true,"payload":{"status":{...}}}`; `message` is a line for people, when there is one.
public struct Response: Codable, Sendable, Equatable {
    public var v: Int = protocolVersion
    public var ok: Bool
    public var error: ErrorReply?
    public var message: String?
    /// Things done as asked that may not do what was meant: printed after the message, on
    /// standard error (`warning: alarms are paused until ...`).
    public var warnings: [String]?
    /// What the request asked for: one type per kind of answer.
    public var payload: Payload?

    public init(ok: Bool = true, message: String? = nil, payload: Payload? = nil) {
        self.ok = ok
        self.message = message
        self.payload = payload
    }

    public static func failure(_ code: ErrorReply.Code, _ message: String) -> Response {
        var response = Response(ok: false)
        response.error = ErrorReply(code: code, message: message)
        return response
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
}

extension Payload {
    private enum Kind: String, CodingKey {
        case status, alarms, rules, overrides, schedule, ring, history, stats, playback, devices, tags, scan, apps, web
        case calendars, reminders
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
        case .tags(let value): try container.encode(value, forKey: .tags)
        case .scan(let value): try container.encode(value, forKey: .scan)
        case .apps(let value): try container.encode(value, forKey: .apps)
        case .web(let value): try container.encode(value, forKey: .web)
        case .calendars(let value): try container.encode(value, forKey: .calendars)
        case .reminders(let value): try container.encode(value, forKey: .reminders)
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
        case .tags: self = .tags(try container.decode([Tag].self, forKey: kind))
        case .scan: self = .scan(try container.decode(TagScan.self, forKey: kind))
        case .apps: self = .apps(try container.decode(AppsReply.self, forKey: kind))
        case .web: self = .web(try container.decode(WebReply.self, forKey: kind))
        case .calendars: self = .calendars(try container.decode([CalendarInfo].self, forKey: kind))
        case .reminders: self = .reminders(try container.decode([ReminderInfo].self, forKey: kind))
        }
    }
}

/// A reminder, as `reminder list` shows it.
public struct ReminderInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var text: String
    /// `HH:MM`.
    public var time: String
    /// `mon,wed,fri` for a repeating reminder.
    public var days: String?
    /// `YYYY-MM-DD` for a one-time reminder.
    public var date: String?
    public var enabled: Bool
    public var sound: String?
    /// `2h: how did it go?`, one per follow-up.
    public var followUps: [String]
    public var unless: String?
    /// When it next chimes: `2026-11-27 16:00`; nil when it does not any more.
    public var next: String?

    public init(
        id: Int, text: String, time: String, days: String?, date: String?, enabled: Bool, sound: String?,
        followUps: [String], unless: String?, next: String?
    ) {
        self.id = id
        self.text = text
        self.time = time
        self.days = days
        self.date = date
        self.enabled = enabled
        self.sound = sound
        self.followUps = followUps
        self.unless = unless
        self.next = next
    }
}

/// A chime that played, for watchers.
public struct ChimeInfo: Codable, Sendable, Equatable {
    public var text: String
    /// What set it: `reminder #3`, `calendar school, 15 min before`.
    public var origin: String
    /// When it was due: `16:00`.
    public var due: String

    public init(text: String, origin: String, due: String) {
        self.text = text
        self.origin = origin
        self.due = due
    }
}

/// A calendar, as `calendar list` shows it.
public struct CalendarInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    /// The file's absolute path.
    public var source: String
    /// What it is for.
    public var purpose: CalendarPurpose
    /// A reminder calendar's minutes before each event.
    public var minutes: [Int]?
    /// A reminder calendar's sound per offset (minutes as text).
    public var sounds: [String: String]?
    /// Holiday dates from today on (within the span read, two years).
    public var upcomingDays: Int
    /// The next holiday: `2026-11-26 Thanksgiving break`.
    public var next: String?
    /// Why the source could not be read, with the line where known, and since when; the last good
    /// copy is used meanwhile.
    public var problem: String?
    /// When the copy in use was read (`YYYY-MM-DD HH:MM`); nil when no copy was ever good.
    public var loadedAt: String?
    /// `calendar show`: what it holds in the days asked for, a line each (`2026-11-26 to 2026-11-29  Thanksgiving break`).
    public var entries: [String]?

    public init(
        id: Int, name: String, source: String, purpose: CalendarPurpose, upcomingDays: Int = 0, next: String? = nil,
        problem: String? = nil, loadedAt: String? = nil, entries: [String]? = nil
    ) {
        self.id = id
        self.name = name
        self.source = source
        self.purpose = purpose
        self.upcomingDays = upcomingDays
        self.next = next
        self.problem = problem
        self.loadedAt = loadedAt
        self.entries = entries
    }
}

/// The ring session after `snooze`, `dismiss` or an answer.
public struct RingReply: Codable, Sendable, Equatable {
    public var session: SessionInfo
    /// The math problem to answer, as shown: `37 × 4 + 19`.
    public var problem: String?
    /// After an answer: whether it was right.
    public var correct: Bool?

    public init(session: SessionInfo, problem: String? = nil, correct: Bool? = nil) {
        self.session = session
        self.problem = problem
        self.correct = correct
    }
}

/// Apps of the policy, and for `run`, the executable to start.
public struct AppsReply: Codable, Sendable, Equatable {
    public var apps: [AppStatusInfo]
    public var executable: String?
    /// apps.toml was refused: why (file:line), since when, and what is enforced meanwhile.
    public var rejected: String?

    public init(apps: [AppStatusInfo], executable: String? = nil) {
        self.apps = apps
        self.executable = executable
    }
}

/// A browser paired with `reveille web pair`.
public struct WebDevice: Codable, Sendable, Equatable {
    /// The refusal of a request carrying a token no paired device has: `reveille-web` then forgets
    /// the browser's cookie.
    public static let unknown =
        "this browser is not paired, or was unpaired; pair it again with a code from 'sudo reveille web pair'"

    public var id: Int
    public var name: String
    public var role: Role
    /// Seconds since the epoch.
    public var pairedAt: Int

    public init(id: Int, name: String, role: Role, pairedAt: Int) {
        self.id = id
        self.name = name
        self.role = role
        self.pairedAt = pairedAt
    }
}

/// Pairing: the code `web pair` made, the token a redeemed code gives, the paired devices.
public struct WebReply: Codable, Sendable, Equatable {
    /// `web pair`: the one-time code, and until when (seconds since the epoch) it is good.
    public var code: String?
    public var expiresAt: Int?
    /// A redeemed code: the device's secret, kept by the browser as a cookie.
    public var token: String?
    public var devices: [WebDevice]

    public init(code: String? = nil, expiresAt: Int? = nil, token: String? = nil, devices: [WebDevice] = []) {
        self.code = code
        self.expiresAt = expiresAt
        self.token = token
        self.devices = devices
    }
}

/// Reading a response's payload as the kind a client expects: nil when it is another kind.
extension Response {
    public var status: StatusInfo? {
        get { if case .status(let value) = payload { value } else { nil } }
        set { payload = newValue.map(Payload.status) }
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
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

/// When an alarm rings next.
public struct RingInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    public var label: String
    /// Local date, `YYYY-MM-DD`.
    public var date: String
    /// `Mon`.
    public var weekday: String
    /// The wall-clock time it rings at.
    public var time: String
    /// Seconds since the epoch.
    public var instant: Int

    public init(alarmID: Int, label: String, date: String, weekday: String, time: String, instant: Int) {
        self.alarmID = alarmID
        self.label = label
        self.date = date
        self.weekday = weekday
        self.time = time
        self.instant = instant
    }
}

public struct StatusInfo: Codable, Sendable, Equatable {
    public var version: String
    public var uptimeSeconds: Int
    public var timeZone: String
    /// Where the zone's rules come from: `tzdata 2025b`, or the built-in copy when the system has none.
    public var timeZoneRules: String?
    /// Calendars that could not be read: `calendar NAME: why (since when); ...`.
    public var calendarProblems: [String]?
    /// What is wrong with the state on disk: a full disk, a restore from the backup at start.
    public var stateProblems: [String]?
    /// Set while the clock reads before the last instant handled and nothing rings: why, and until when.
    public var clockWaiting: String?
    /// The next reminder to chime: `2026-11-27 16:00 check-in`.
    public var nextReminder: String?
    /// The daemon's local time, `YYYY-MM-DD HH:MM:SS`.
    public var now: String
    /// Seconds since the epoch, by the daemon's clock.
    public var nowInstant: Int
    /// `on`, `off` or `paused`.
    public var master: String
    public var pausedUntil: String?
    public var alarmCount: Int
    public var enabledCount: Int
    public var nextRing: RingInfo?
    /// The caller's rights.
    public var role: Role
    /// The alarm ringing or snoozed now.
    public var session: SessionInfo?
    /// The NFC reader's health.
    public var reader = ReaderState(.notConfigured)
    /// What the audio output is doing.
    public var sound: String = ""
    /// How app launches are limited: by fanotify, or only through `reveille run`.
    public var appGuard = AppGuardState(mode: .starting, detail: "")
    /// The bedside buttons and keypads, configured or found.
    public var inputs: [InputState] = []
    /// The voice: `espeak-ng, voice en`, `off`, or why it is silent.
    public var voice = ""
    /// What the daemon has used since it started.
    public var resources: ResourceUse?
    /// reveille.toml was changed and refused at a reload (SIGHUP): why, with file:line, and since
    /// when; the settings in use stay those of the start.
    public var settingsRejected: String?

    public init(
        version: String, uptimeSeconds: Int, timeZone: String, now: String, nowInstant: Int, master: String,
        pausedUntil: String?, alarmCount: Int, enabledCount: Int, nextRing: RingInfo?, role: Role
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.timeZone = timeZone
        self.now = now
        self.nowInstant = nowInstant
        self.master = master
        self.pausedUntil = pausedUntil
        self.alarmCount = alarmCount
        self.enabledCount = enabledCount
        self.nextRing = nextRing
        self.role = role
    }
}

public struct AlarmInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var label: String
    public var time: String
    /// Canonical days (`mon-fri`) for a repeating alarm.
    public var days: String?
    /// The date of a one-shot.
    public var date: String?
    public var enabled: Bool
    /// nil: the built-in tone.
    public var sound: String?
    public var volume: Int
    public var fadeInSeconds: Int
    public var challenge: Challenge
    public var mathDifficulty: MathDifficulty
    public var tags: [String]
    public var maxSnoozes: Int
    public var snoozeMinutes: Int
    public var skipHolidays: Bool
    public var nextRing: RingInfo?
    /// Why it will not ring, or not as set (`RingWarnings`); nil when all is well.
    public var warnings: [String]?

    public init(_ alarm: Alarm, nextRing: RingInfo?, warnings: [String] = []) {
        id = alarm.id
        label = alarm.label
        time = alarm.time.description
        switch alarm.repeats {
        case .weekly(let set): days = set.description
        case .once(let day): date = day.description
        }
        enabled = alarm.enabled
        sound = alarm.sound
        volume = alarm.volume
        fadeInSeconds = alarm.fadeInSeconds
        challenge = alarm.challenge
        mathDifficulty = alarm.mathDifficulty
        tags = alarm.tags
        maxSnoozes = alarm.maxSnoozes
        snoozeMinutes = alarm.snoozeMinutes
        skipHolidays = alarm.skipHolidays
        self.nextRing = nextRing
        self.warnings = warnings.isEmpty ? nil : warnings
    }
}

public struct RuleInfo: Codable, Sendable, Equatable {
    public var id: Int
    /// nil: all alarms.
    public var alarmID: Int?
    public var days: String
    /// `off` or `HH:MM`.
    public var change: DayChange

    public init(_ rule: WeeklyRule) {
        id = rule.id
        alarmID = rule.alarmID
        days = rule.days.description
        change = rule.change
    }
}

public struct OverrideInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int?
    public var date: String
    public var change: DayChange

    public init(_ override: DateOverride) {
        id = override.id
        alarmID = override.alarmID
        date = override.date.description
        change = override.change
    }
}

/// One line of `reveille next`: an alarm on a day and the layer that decided it, or a day with nothing set.
public struct ScheduleRow: Codable, Sendable, Equatable {
    public var date: String
    public var weekday: String
    /// The wall-clock time it rings at, or would have rung at; nil on a day with nothing set.
    public var time: String?
    public var alarmID: Int?
    public var label: String?
    /// The deciding layer; nil on a day with nothing set.
    public var layer: Layer?
    public var rings: Bool
    public var note: String
    /// For a reminder's chime (`label` is its text): what set it, like `reminder #3`; `rings` says
    /// whether it plays and `note` why not.
    public var reminder: String?

    public init(
        date: String, weekday: String, time: String?, alarmID: Int?, label: String?, layer: Layer?, rings: Bool,
        note: String, reminder: String? = nil
    ) {
        self.reminder = reminder
        self.date = date
        self.weekday = weekday
        self.time = time
        self.alarmID = alarmID
        self.label = label
        self.layer = layer
        self.rings = rings
        self.note = note
    }
}

/// The alarm that is ringing or snoozed.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int
    public var label: String
    /// Ringing or snoozed (or how it ended, after a dismissal).
    public var state: SessionState
    /// Local `HH:MM` it was due (`HH:MM:SS` when set to the second).
    public var scheduledTime: String
    /// Rung by `reveille alarm test`.
    public var test: Bool?
    public var snoozeCount: Int
    /// 0: unlimited.
    public var maxSnoozes: Int
    /// Local `HH:MM:SS` the snooze ends.
    public var snoozedUntil: String?
    /// What stops it now.
    public var challenge: Challenge
    /// NFC was asked for, but no reader was healthy when it fired.
    public var fellBackToMath: Bool
    public var howToDismiss: String
    public var wrongAnswers: Int
    /// How it ended, once dismissed.
    public var dismissedBy: DismissalMethod?
    /// A tag lies on the reader: it must be lifted, then tapped.
    public var tagOnReader: Bool

    public init(
        id: Int, alarmID: Int, label: String, state: SessionState, scheduledTime: String, snoozeCount: Int,
        maxSnoozes: Int, snoozedUntil: String?, challenge: Challenge, fellBackToMath: Bool, howToDismiss: String,
        wrongAnswers: Int, dismissedBy: DismissalMethod?, tagOnReader: Bool
    ) {
        self.id = id
        self.alarmID = alarmID
        self.label = label
        self.state = state
        self.scheduledTime = scheduledTime
        self.snoozeCount = snoozeCount
        self.maxSnoozes = maxSnoozes
        self.snoozedUntil = snoozedUntil
        self.challenge = challenge
        self.fellBackToMath = fellBackToMath
        self.howToDismiss = howToDismiss
        self.wrongAnswers = wrongAnswers
        self.dismissedBy = dismissedBy
        self.tagOnReader = tagOnReader
    }

    /// `#3 work` or `#3`.
    public var name: String { label.isEmpty ? "#\(alarmID)" : "#\(alarmID) \(label)" }
}

/// The NFC reader's health, typed: clients decide on `condition`, and show `description`.
public struct ReaderState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Condition: String, Codable, Sendable {
        case notConfigured = "not-configured"
        case ok
        case absent
        case failing
    }

    public var condition: Condition
    /// The device's name when ok; why, when absent or failing.
    public var detail: String

    public init(_ health: ReaderHealth) {
        switch health {
        case .notConfigured: (condition, detail) = (.notConfigured, "")
        case .ok(let device): (condition, detail) = (.ok, device)
        case .absent(let why): (condition, detail) = (.absent, why)
        case .failing(let why): (condition, detail) = (.failing, why)
        }
    }

    public var health: ReaderHealth {
        switch condition {
        case .notConfigured: .notConfigured
        case .ok: .ok(detail)
        case .absent: .absent(detail)
        case .failing: .failing(detail)
        }
    }

    public var description: String { health.description }
}

/// How app launches are limited, typed.
public struct AppGuardState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Mode: String, Codable, Sendable {
        /// Not set up yet.
        case starting
        /// fanotify answers every exec of a listed executable.
        case fanotify
        /// fanotify is unavailable: only `reveille run` asks first.
        case gateOnly = "gate-only"
    }

    public var mode: Mode
    /// What is guarded, or why fanotify is unavailable.
    public var detail: String
    /// apps.toml was refused: why (file:line), since when, and what is enforced meanwhile.
    public var rejected: String?
    /// The mount points of the file systems whose execs the guard answers (one per file system).
    public var watched: [String]?
    /// The guard's thread has been answering one exec for this long (seconds): execs are stalled.
    public var stalledSeconds: Double?

    public init(
        mode: Mode, detail: String, rejected: String? = nil, watched: [String]? = nil, stalledSeconds: Double? = nil
    ) {
        self.mode = mode
        self.detail = detail
        self.rejected = rejected
        self.watched = watched
        self.stalledSeconds = stalledSeconds
    }

    public var description: String {
        switch mode {
        case .starting: "starting"
        case .fanotify:
            "fanotify: \(detail)"
                + (stalledSeconds.map { "; STALLED: one exec unanswered for \(Int($0)) s" } ?? "")
        case .gateOnly: "gate only: 'reveille run NAME' asks first (fanotify unavailable: \(detail))"
        }
    }
}

/// A bedside button or keypad (an evdev device), for `status`, `doctor` and `watch`.
public struct InputState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Condition: String, Codable, Sendable {
        /// Open and read.
        case ok
        /// Configured, but not there (yet): it is picked up when it appears.
        case absent
        /// It was there and went away.
        case unplugged
        /// There, but it cannot be opened (permissions).
        case failing
    }

    public var path: String
    /// The device's name when known (`Dell USB Keypad`).
    public var name: String
    public var condition: Condition
    public var detail: String

    public init(path: String, name: String, condition: Condition, detail: String) {
        self.path = path
        self.name = name
        self.condition = condition
        self.detail = detail
    }

    /// `ok: gpio-keys (/dev/input/event0)`, `unplugged: /dev/input/by-id/usb-keypad`.
    public var description: String {
        let what = name.isEmpty || name == path ? path : "\(name) (\(path))"
        return "\(condition.rawValue): \(what)\(detail.isEmpty ? "" : "; \(detail)")"
    }
}

/// One line of `reveille status --watch` (and, later, what the buttons and the screen follow):
/// a change as it happens, streamed after a `watch` request.
public enum WatchEvent: Codable, Sendable, Equatable {
    /// A session rang, was snoozed, rang again, changed its challenge, or ended.
    case session(SessionInfo)
    /// An occurrence was recorded as missed.
    case missed(MissedInfo)
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
}

/// One line of `reveille history`.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int
    public var label: String
    /// Local date and time it was due: `2026-11-23 06:45`.
    public var scheduled: String
    /// Local time it first rang (`HH:MM:SS`); nil for a missed one.
    public var started: String?
    /// ringing, snoozed, dismissed, auto-stopped, missed.
    public var state: SessionState
    public var snoozes: Int
    public var wrongAnswers: Int
    /// Local time it ended (`HH:MM:SS`).
    public var ended: String?
    /// `math` or `tag`.
    public var dismissedBy: DismissalMethod?
    /// From first ring to dismissal.
    public var secondsToDismiss: Int?
    /// A tag alarm that asked for math instead: no reader worked.
    public var fellBackToMath: Bool?
    /// The registered tag that dismissed it.
    public var dismissedTag: String?
    /// Alarms that came due during it and rang as this session, by id.
    public var joined: [Int]?
    /// Rung by `reveille alarm test`.
    public var test: Bool?

    public init(
        id: Int, alarmID: Int, label: String, scheduled: String, started: String?, state: SessionState, snoozes: Int,
        wrongAnswers: Int, ended: String?, dismissedBy: DismissalMethod?, secondsToDismiss: Int?
    ) {
        self.id = id
        self.alarmID = alarmID
        self.label = label
        self.scheduled = scheduled
        self.started = started
        self.state = state
        self.snoozes = snoozes
        self.wrongAnswers = wrongAnswers
        self.ended = ended
        self.dismissedBy = dismissedBy
        self.secondsToDismiss = secondsToDismiss
    }
}

/// `reveille stats`: how mornings went.
public struct StatsInfo: Codable, Sendable, Equatable {
    public var days: Int
    /// Occurrences that rang.
    public var sessions: Int
    public var dismissed: Int
    public var autoStopped: Int
    public var missed: Int
    public var averageSnoozes: Double?
    public var averageSecondsToDismiss: Double?
    public var wrongAnswers: Int

    public init(
        days: Int, sessions: Int, dismissed: Int, autoStopped: Int, missed: Int, averageSnoozes: Double?,
        averageSecondsToDismiss: Double?, wrongAnswers: Int
    ) {
        self.days = days
        self.sessions = sessions
        self.dismissed = dismissed
        self.autoStopped = autoStopped
        self.missed = missed
        self.averageSnoozes = averageSnoozes
        self.averageSecondsToDismiss = averageSecondsToDismiss
        self.wrongAnswers = wrongAnswers
    }
}

/// The daemon's own resource use since it started (getrusage, all threads).
public struct ResourceUse: Codable, Sendable, Equatable {
    /// User plus system CPU time.
    public var cpuMicroseconds: Int
    /// Times a thread waited and was woken (voluntary context switches).
    public var wakeups: Int
    /// Times a thread was preempted (involuntary context switches).
    public var preemptions: Int
    /// Largest resident set size.
    public var peakRSSKilobytes: Int
    /// Resident set size now, and how much of it is anonymous (heap, stacks) rather than pages of
    /// the executable and libraries.
    public var rssKilobytes: Int
    public var anonymousKilobytes: Int
    /// Open descriptors, and the soft limit (RLIMIT_NOFILE); nil from a daemon that did not count.
    public var openDescriptors: Int?
    public var descriptorLimit: Int?
    /// inotify watches held, and the limit for the daemon's user (fs.inotify.max_user_watches).
    public var inotifyWatches: Int?
    public var inotifyWatchLimit: Int?
    public var threads: Int?

    /// "31 of 1024 descriptors, 6 inotify watches (of 65536), 4 threads", or nil.
    public var handlesText: String? {
        guard let openDescriptors, let descriptorLimit, let inotifyWatches, let threads else { return nil }
        let watchLimit = inotifyWatchLimit.map { " (of \($0))" } ?? ""
        return
            "\(openDescriptors) of \(descriptorLimit) descriptors open, \(inotifyWatches) inotify watches\(watchLimit), \(threads) threads"
    }

    public init(
        cpuMicroseconds: Int, wakeups: Int, preemptions: Int, peakRSSKilobytes: Int, rssKilobytes: Int,
        anonymousKilobytes: Int
    ) {
        self.cpuMicroseconds = cpuMicroseconds
        self.wakeups = wakeups
        self.preemptions = preemptions
        self.peakRSSKilobytes = peakRSSKilobytes
        self.rssKilobytes = rssKilobytes
        self.anonymousKilobytes = anonymousKilobytes
    }
}

/// How a `sound test` started.
public struct PlaybackInfo: Codable, Sendable, Equatable {
    /// The device playing; nil when none could be opened.
    public var device: String?
    public var source: String
    public var seconds: Int
    public var problems: [String]

    public init(device: String?, source: String, seconds: Int, problems: [String]) {
        self.device = device
        self.source = source
        self.seconds = seconds
        self.problems = problems
    }
}

/// A tag placed on the reader, and whether it is registered.
public struct TagScan: Codable, Sendable, Equatable {
    public var uid: String
    /// The registered tag's label; nil when it is not registered.
    public var label: String?
    /// Whether its UID is random (a new one at every tap), so it cannot be registered.
    public var random: Bool

    public init(uid: String, label: String?, random: Bool) {
        self.uid = uid
        self.label = label
        self.random = random
    }
}

/// One app of the policy, for one user, now.
public struct AppStatusInfo: Codable, Sendable, Equatable {
    public var name: String
    public var user: String
    public var allowed: Bool
    /// `allowed until 20:00 (35 of 60 min left today)`, `outside its hours; allowed from 15:00`.
    public var reason: String
    public var usedMinutes: Int
    /// Today's limit with any grant; nil: none.
    public var limitMinutes: Int?
    public var grantMinutes: Int

    public init(
        name: String, user: String, allowed: Bool, reason: String, usedMinutes: Int, limitMinutes: Int?,
        grantMinutes: Int
    ) {
        self.name = name
        self.user = user
        self.allowed = allowed
        self.reason = reason
        self.usedMinutes = usedMinutes
        self.limitMinutes = limitMinutes
        self.grantMinutes = grantMinutes
    }
}

/// An occurrence recorded as missed, never rung.
public struct MissedInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    public var label: String
    /// Local `HH:MM` it was due.
    public var scheduledTime: String

    public init(alarmID: Int, label: String, scheduledTime: String) {
        self.alarmID = alarmID
        self.label = label
        self.scheduledTime = scheduledTime
    }
}

extension WatchEvent {
    private enum Kind: String, CodingKey {
        case session, missed, nextRing, tagOnReader, readerHealth, policyRejected, input, schedule, reminder
    }

    /// `{"session": {...}}`, `{"nextRing": null}`, `{"tagOnReader": true}`: the kind as the key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .session(let value): try container.encode(value, forKey: .session)
        case .missed(let value): try container.encode(value, forKey: .missed)
        case .nextRing(let value): try container.encode(value, forKey: .nextRing)
        case .tagOnReader(let value): try container.encode(value, forKey: .tagOnReader)
        case .readerHealth(let value): try container.encode(value, forKey: .readerHealth)
        case .policyRejected(let value): try container.encode(value, forKey: .policyRejected)
        case .input(let value): try container.encode(value, forKey: .input)
        case .schedule: try container.encode(true, forKey: .schedule)
        case .reminder(let value): try container.encode(value, forKey: .reminder)
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
        case .nextRing: self = .nextRing(try container.decodeIfPresent(RingInfo.self, forKey: kind))
        case .tagOnReader: self = .tagOnReader(try container.decode(Bool.self, forKey: kind))
        case .readerHealth: self = .readerHealth(try container.decode(ReaderState.self, forKey: kind))
        case .policyRejected: self = .policyRejected(try container.decode(String.self, forKey: kind))
        case .input: self = .input(try container.decode(InputState.self, forKey: kind))
        case .schedule: self = .schedule
        case .reminder: self = .reminder(try container.decode(ChimeInfo.self, forKey: kind))
        }
    }
}

/// A line of a `watch` stream, after its first `ok` response.
public struct WatchLine: Codable, Sendable, Equatable {
    public var v: Int = protocolVersion
    public var event: WatchEvent

    public init(_ event: WatchEvent) {
        self.event = event
    }
}
