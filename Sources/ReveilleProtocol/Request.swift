import ReveilleCore

/// The protocol version this build speaks. A request carries it in `"v"`; so does every response.
public let protocolVersion = 1

/// One request line on the control socket: `{"v":1,"op":{"status":{}}}`.
public struct Request: Codable, Sendable, Equatable {
    public var v: Int
    public var op: Command
    /// Lowers the rights this request is served with (never raises them): `reveille-web` asks with
    /// the rights of the browser it serves, not its own.
    public var cap: Role?
    /// A paired web device's token (`reveille web pair`): the request is served with that device's
    /// rights, at most the connection's. An unknown token is refused.
    public var device: String?

    public init(_ op: Command, cap: Role? = nil, device: String? = nil) {
        self.v = protocolVersion
        self.op = op
        self.cap = cap
        self.device = device
    }
}

/// What a client asks the daemon to do.
public enum Command: Codable, Sendable, Equatable {
    case status
    case alarmList
    case alarmAdd(spec: AlarmSpec)
    case alarmEdit(id: Int, spec: AlarmSpec)
    case alarmRemove(id: Int)
    case alarmSetEnabled(id: Int, enabled: Bool)
    case ruleList
    case ruleAdd(alarmID: Int?, days: DaySet, change: DayChange)
    case ruleRemove(id: Int)
    /// Changes a rule's days, change or scope; what is nil stays. `allAlarms` makes it apply to
    /// every alarm again.
    case ruleEdit(id: Int, days: DaySet?, change: DayChange?, alarmID: Int?, allAlarms: Bool)
    case overrideList
    /// `date` is `YYYY-MM-DD`, `today` or `tomorrow`, in the daemon's time zone.
    case overrideAdd(alarmID: Int?, date: String, change: DayChange)
    case overrideRemove(id: Int)
    /// Changes an override's date, change or scope, as `ruleEdit`.
    case overrideEdit(id: Int, date: String?, change: DayChange?, alarmID: Int?, allAlarms: Bool)
    /// `until` as for `overrideAdd`'s date; nil pauses until `resume`.
    case pause(until: String?)
    case resume
    case next(days: Int)
    /// Snooze the ringing alarm.
    case snooze
    /// "Yes, I am up": answers the wake-up check that asks now.
    case awake
    /// The challenge of alarm `id`, before a change within its commitment: its problem, or its
    /// tag; `answer` answers the problem.
    case unlock(alarmID: Int, answer: Int?)
    /// Dismisses the next ring before it rings (its alarm unlocked by its challenge first).
    case dismissNext
    /// The current math problem (a new one if none); the sound drops while it is answered.
    case problem
    case answer(value: Int)
    case history(days: Int)
    case stats(days: Int)
    /// Plays `file` (nil: the configured sound, else the built-in tone) for `seconds`, on `device`
    /// (nil: the configured list, then `default`), at `volume` (nil: the configured default).
    case soundTest(file: String?, device: String?, seconds: Int, volume: Int?)
    case soundDevices
    /// The sound files an alarm may take from this clock: those everyone may read in its sound
    /// folders (`Paths.soundFolders`), the configured sound and those alarms name.
    case soundList
    /// Ends a `soundTest` that is playing.
    case soundStop
    /// Rings alarm `id` now, as it would ring, recorded as a test.
    case alarmTest(id: Int)
    /// Registers a tag: `uid` as hex, or nil to wait up to `timeoutSeconds` for a tap.
    case tagAdd(label: String, uid: String?, timeoutSeconds: Int)
    case tagList
    case tagRemove(label: String)
    /// Waits up to `timeoutSeconds` for a tap and says which tag it was.
    case tagTest(timeoutSeconds: Int)
    /// Every app of the policy for `user` (nil: the caller).
    case appsStatus(user: String?)
    /// Every app of the policy for every user its limits fall on (the named users, or the people
    /// of this machine): what a parent's screen shows.
    case appsOverview
    /// May `name` start now for `user` (nil: the caller)?
    case appCheck(name: String, user: String?)
    /// More minutes for `name` today; `user` nil: for every user of the app. `openNow`: the app
    /// is also open from now for those minutes, outside its hours (`--open-now`).
    case appGrant(name: String, minutes: Int, user: String?, openNow: Bool? = nil)
    /// `reveille run`: may the caller start `name`? If so the caller's process is followed as it.
    case appStart(name: String)
    /// The policy in force, app by app, with its revision.
    case appList
    /// Adds (`adding`) or replaces an app's setup. `revision`: the one the editor saw; the change
    /// is refused if the policy changed since (nil: the CLI's edit, made on the policy in force).
    case appPut(setup: AppSetup, adding: Bool, revision: Int?)
    case appRemove(name: String, revision: Int?)
    /// The policy in force as apps.toml text.
    case appExport
    /// The applications installed on the machine (its `.desktop` files), each with the program
    /// the guard would see, or why it has none: the app picker.
    case appCatalog
    /// The caller asks for `minutes` more of `name` today.
    case appAsk(name: String, minutes: Int, why: String?)
    /// Today's requests: an admin's, everyone's; anyone else's, their own.
    case appRequests
    /// Approves or refuses a request; approved with `openNow`, the app is open from now for the
    /// minutes asked, outside its hours.
    case appAnswer(id: Int, approve: Bool, openNow: Bool? = nil)
    /// `reveille-mqtt` passes on what another machine of the household (`machine`) used on `day`
    /// (`YYYY-MM-DD`): seconds per user and app, counted against the same limits here.
    case appsHousehold(machine: String, day: String, usage: [HouseholdUsage])
    /// `reveille-mqtt` passes on what the household's hub (`hub`) holds: its app policy
    /// (apps.toml's text) or its grants of one day. Taken only on a machine that follows a hub.
    case appsFromHub(hub: String, policy: String?, grants: HubGrants?)
    /// `reveille-web` says on which port it serves the page, so that `web pair` names the right
    /// address. Kept in memory only.
    case webServing(port: Int)
    /// The first boot's set-up, from the clock's screen (hardware.md, "The image"): the system's
    /// time zone (a tzdata name), once; answered with a code that pairs a phone as an admin.
    case firstSetup(timeZone: String)
    /// The Wi-Fi networks the clock hears, strongest first (hardware.md, "Wi-Fi"). An admin's, and
    /// the clock's screen's during the first set-up.
    case wifiScan
    /// Joins the Wi-Fi network named `network` with its `password` (nil: an open network), kept by
    /// the system's Wi-Fi service (wpa_supplicant), never by Reveille. Answered once the clock is
    /// on it (with its address), or with why not: a wrong password, out of reach, no adapter.
    /// Who may: as `wifiScan`.
    case wifiJoin(network: String, password: String?)
    /// What the clock's screen shows now (its page, on the kiosk): the backlight follows it
    /// (`Backlight`), except that a ring is at full brightness.
    case screenLight(shows: ScreenLight)
    /// Streams changes as they happen: an `ok` response, then one `WatchEvent` line per change,
    /// until the client closes the connection.
    case watch
    /// A one-time code (valid ten minutes) that pairs one browser with `role` (`user` or `admin`);
    /// with `person`, a child's phone (user rights), served as that login name: their own apps,
    /// their minutes left, their asks for more.
    case webPair(role: Role, name: String, person: String? = nil)
    /// Trades a pairing code for the device's token, once.
    case webRedeem(code: String)
    case webDevices
    case webUnpair(id: Int)
    /// A calendar: an iCalendar file the daemon reads (and re-reads when it changes). `purpose`:
    /// `holidays` (the default) or `reminders`, which chime `minutes` before each event, with a
    /// sound for some offsets (`sounds`, by minutes as text). A holiday calendar's `only`, `except`
    /// and `timed` say which of its events are holidays (`HolidayFilter`).
    case calendarAdd(
        name: String, source: String, purpose: String? = nil, minutes: [Int]? = nil, sounds: [String: String]? = nil,
        only: String? = nil, except: String? = nil, timed: Bool? = nil, person: String? = nil)
    case calendarList
    /// By id or name.
    case calendarRemove(calendar: String)
    /// What a calendar holds in the next `days` days.
    case calendarShow(calendar: String, days: Int)
    /// Asks the clock's fetcher (`reveille-calendar.path`, as the unprivileged reveille-fetch
    /// user) to fetch every web calendar now, even one waiting after failures. The daemon only
    /// writes `Paths.fetchRequest`; it never fetches.
    case calendarFetchNow
    case reminderList
    /// A chime just played, once more in 10 minutes (`Chime.again`), by its key (`ChimeInfo.key`);
    /// nil: the chime played last. Anyone in the socket group, and the person it is for.
    case chimeAgain(key: String?)
    case reminderAdd(spec: ReminderSpec)
    case reminderEdit(id: Int, spec: ReminderSpec)
    case reminderRemove(id: Int)
    /// The switch for every reminder, apart from the alarms' pause.
    case remindersSwitch(on: Bool)

    /// The words a person typed for it, for messages: `alarm add`.
    public var name: String {
        switch self {
        case .status: "status"
        case .alarmList: "alarm list"
        case .alarmAdd: "alarm add"
        case .alarmEdit: "alarm edit"
        case .alarmRemove: "alarm rm"
        case .alarmSetEnabled(_, let enabled): enabled ? "alarm enable" : "alarm disable"
        case .ruleList: "rule list"
        case .ruleAdd: "rule add"
        case .ruleRemove: "rule rm"
        case .ruleEdit: "rule edit"
        case .overrideList: "override list"
        case .overrideAdd: "override add"
        case .overrideRemove: "override rm"
        case .overrideEdit: "override edit"
        case .pause: "pause"
        case .resume: "resume"
        case .next: "next"
        case .snooze: "snooze"
        case .awake: "awake"
        case .unlock: "unlock"
        case .dismissNext: "dismiss --next"
        case .problem: "dismiss"
        case .answer: "dismiss --answer"
        case .history: "history"
        case .stats: "stats"
        case .soundTest: "sound test"
        case .soundDevices: "sound devices"
        case .soundList: "sound list"
        case .soundStop: "sound stop"
        case .alarmTest: "alarm test"
        case .tagAdd: "tag add"
        case .tagList: "tag list"
        case .tagRemove: "tag rm"
        case .tagTest: "tag test"
        case .appsStatus: "apps status"
        case .appsOverview: "apps status --all"
        case .appCheck: "apps check"
        case .appGrant: "apps grant"
        case .appStart: "run"
        case .appList: "apps list"
        case .appPut(_, let adding, _): adding ? "apps add" : "apps edit"
        case .appRemove: "apps rm"
        case .appExport: "apps export"
        case .appCatalog: "apps installed"
        case .appAsk: "apps ask"
        case .appRequests: "apps requests"
        case .appsHousehold: "apps household"
        case .appsFromHub: "apps from the hub"
        case .appAnswer(_, let approve, _): approve ? "apps approve" : "apps refuse"
        case .watch: "status --watch"
        case .webPair: "web pair"
        case .webRedeem: "web pairing"
        case .webDevices: "web devices"
        case .calendarAdd: "calendar add"
        case .calendarList: "calendar list"
        case .calendarRemove: "calendar rm"
        case .calendarShow: "calendar show"
        case .calendarFetchNow: "calendar refresh --background"
        case .webUnpair: "web unpair"
        case .webServing: "web serving"
        case .firstSetup: "first set-up"
        case .wifiScan: "wifi scan"
        case .wifiJoin: "wifi join"
        case .screenLight: "screen light"
        case .reminderList: "reminder list"
        case .chimeAgain: "reminder again"
        case .reminderAdd: "reminder add"
        case .reminderEdit: "reminder edit"
        case .reminderRemove: "reminder rm"
        case .remindersSwitch(let on): on ? "reminders on" : "reminders off"
        }
    }

    /// What a command may change, said by each command itself: a new command does not compile
    /// until it says (docs/ARCHITECTURE.md, "How to add a command").
    public enum Reach: Sendable, Equatable {
        /// The schedule the machine holds: alarms, rules, overrides, the master switch, calendars,
        /// reminders, and the tags alarms name. A change first passes the commitment gate; once
        /// made, the machine takes the new schedule (`Controller.scheduleChanged`).
        case schedule
        /// A ring in progress or the next one, through the machine's own events (snooze, dismiss,
        /// unlock, `alarm test`): the machine decides and answers.
        case ring
        /// Nothing the machine holds: reads, apps, the web's paired devices, the sound test.
        case elsewhere
    }

    public var reach: Reach {
        switch self {
        case .alarmAdd, .alarmEdit, .alarmRemove, .alarmSetEnabled, .ruleAdd, .ruleRemove, .ruleEdit, .overrideAdd,
            .overrideRemove, .overrideEdit, .pause, .resume, .calendarAdd, .calendarRemove, .reminderAdd, .reminderEdit,
            .reminderRemove, .remindersSwitch, .chimeAgain,
            // Removing a tag takes it from the alarms that named it.
            .tagRemove:
            .schedule
        case .snooze, .awake, .unlock, .dismissNext, .problem, .answer, .alarmTest:
            .ring
        case .status, .alarmList, .ruleList, .overrideList, .next, .history, .stats, .soundTest, .soundDevices,
            .soundList, .soundStop, .tagAdd, .tagList, .tagTest, .appsStatus, .appsOverview, .appCheck, .appGrant,
            .appStart,
            .appList, .appPut,
            .appRemove, .appExport, .appCatalog, .appAsk, .appRequests, .appAnswer, .appsHousehold, .appsFromHub,
            .webServing, .watch, .firstSetup, .wifiScan, .wifiJoin, .screenLight,
            .webPair, .webRedeem,
            .webDevices, .webUnpair, .calendarList, .calendarShow, .calendarFetchNow, .reminderList:
            .elsewhere
        }
    }

    /// Whether it changes alarms, rules, overrides, the master switch, calendars or reminders.
    public var changesSchedule: Bool { reach == .schedule }

    /// What a browser gets only when it is paired as an admin (docs/guide/screen.md, "Who may use it"): what
    /// the household's people use and do (apps and minutes, the policy, requests, the history,
    /// the calendars) and a ring at will (a test). Any other browser, the kiosk's loopback
    /// included, is refused it, whatever its rights on the socket.
    public var forAdminBrowsersOnly: Bool {
        switch self {
        case .appsOverview, .appList, .appExport, .appRequests, .history, .stats, .calendarList, .calendarShow,
            .alarmTest:
            true
        case .appsStatus(let user), .appCheck(_, let user): user != nil
        default: false
        }
    }

    /// Why a browser that is not an admin's is refused a command `forAdminBrowsersOnly`.
    public static let notAnAdminsBrowser =
        "only a browser paired as an admin sees the household's apps, history and calendars, or rings a test: pair this one as an admin"

    /// Who may do it (docs/guide/rights.md, "Who may do what").
    public var requiredRole: Role {
        switch self {
        // Anyone on the machine, about their own apps only (docs/guide/apps.md, "A child's side").
        // "Again in 10 minutes" is the person's too, for their own chime (checked by its handler).
        case .appsStatus(nil), .appAsk, .appRequests, .watch, .chimeAgain:
            .none
        // `--unless` is a shell command the daemon runs as its own user: only for those who are
        // that user already (root and the daemon's user), never for the admin group.
        case .reminderAdd(let spec) where spec.unless.map({ !$0.isEmpty }) == true,
            .reminderEdit(_, let spec) where spec.unless.map({ !$0.isEmpty }) == true:
            .owner
        // The screen's own page (its handler takes it from the kiosk only).
        case .screenLight:
            .user
        case .status, .alarmList, .ruleList, .overrideList, .next, .snooze, .awake, .unlock, .dismissNext, .problem,
            .answer,
            .history, .stats,
            .soundTest, .soundDevices, .soundList, .soundStop, .alarmTest, .tagList, .tagTest, .appsStatus,
            .appsOverview,
            .appCheck,
            .appStart, .appList, .appExport,
            .webRedeem, .calendarList, .calendarShow, .reminderList:
            .user
        // The household's, at the clock's screen, and only while the clock is not yet set up
        // (`FirstSetup.refusal`). The Wi-Fi: an admin's, or the screen's during that set-up
        // (`WifiRights.refusal`).
        case .firstSetup, .wifiScan, .wifiJoin:
            .user
        case .alarmAdd, .alarmEdit, .alarmRemove, .alarmSetEnabled, .ruleAdd, .ruleRemove, .ruleEdit, .overrideAdd,
            .overrideRemove, .overrideEdit, .pause, .resume, .tagAdd, .tagRemove, .appGrant, .appPut, .appRemove,
            .appAnswer, .appsHousehold, .appsFromHub, .appCatalog, .webPair, .webDevices,
            .webUnpair, .webServing,
            .calendarAdd, .calendarRemove, .calendarFetchNow, .reminderAdd, .reminderEdit, .reminderRemove,
            .remindersSwitch:
            .admin
        }
    }
}

/// The rights a peer has, decided from its credentials (SO_PEERCRED).
public enum Role: String, Codable, Sendable, Comparable, CustomStringConvertible {
    /// Not in any group the daemon knows: nothing.
    case none
    /// The socket group: read status, snooze, answer challenges.
    case user
    /// The admin group: also manage alarms, tags, overrides and grants.
    case admin
    /// Root or the daemon's own user: everything.
    case owner

    private var rank: Int {
        switch self {
        case .none: 0
        case .user: 1
        case .admin: 2
        case .owner: 3
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }

    public var description: String { rawValue }
}

/// The fields of an alarm a client sets. Every field is optional: `alarm add` fills the rest with
/// defaults, `alarm edit` changes only what is given. The name, time, repeat, sound and tags are
/// its own; every other setting (`Alarm.settings`) is in `settings`, by key, and reads and writes
/// as the alarm's property does: `spec.volume = 40`.
@dynamicMemberLookup
public struct AlarmSpec: Sendable, Equatable {
    public var label: String?
    public var time: LocalTime?
    public var days: DaySet?
    /// `YYYY-MM-DD`, `today` or `tomorrow`: a one-shot on that date.
    public var date: String?
    /// A one-shot this many seconds from now (to the second).
    public var inSeconds: Int?
    public var enabled: Bool?
    /// A sound file; the empty string means the built-in tone.
    public var sound: String?
    public var tags: [String]?
    /// The settings given, by `AlarmSetting.key`. Giving `snoozeMinutes` without
    /// `laterSnoozeMinutes` makes every snooze that long.
    public var settings: [String: SettingValue] = [:]

    public init() {}

    /// A setting of the alarm, given or not: `spec.volume`, `spec.commitSeconds`.
    public subscript<Value: SettingValueType>(dynamicMember path: WritableKeyPath<Alarm, Value>) -> Value? {
        get { Alarm.setting(at: path).flatMap { settings[$0.key] }.flatMap { Value(setting: $0) } }
        set {
            guard let setting = Alarm.setting(at: path) else {
                preconditionFailure("\(path) is not one of Alarm.settings")
            }
            settings[setting.key] = newValue?.setting
        }
    }
}

extension AlarmSpec: Codable {
    private enum Key: String, CodingKey {
        case label, time, days, date, inSeconds, enabled, sound, tags
    }

    /// On the wire each setting sits beside the others under its own key, as before there was a table.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(time, forKey: .time)
        try container.encodeIfPresent(days, forKey: .days)
        try container.encodeIfPresent(date, forKey: .date)
        try container.encodeIfPresent(inSeconds, forKey: .inSeconds)
        try container.encodeIfPresent(enabled, forKey: .enabled)
        try container.encodeIfPresent(sound, forKey: .sound)
        try container.encodeIfPresent(tags, forKey: .tags)
        try SettingValues(settings).encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        time = try container.decodeIfPresent(LocalTime.self, forKey: .time)
        days = try container.decodeIfPresent(DaySet.self, forKey: .days)
        date = try container.decodeIfPresent(String.self, forKey: .date)
        inSeconds = try container.decodeIfPresent(Int.self, forKey: .inSeconds)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        sound = try container.decodeIfPresent(String.self, forKey: .sound)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        settings = try SettingValues(from: decoder).values
        // A key this version does not know is refused, never dropped: a page or script that sends
        // "difficulty" for "mathDifficulty" hears so, instead of an alarm saved without it.
        let known = Set(["label", "time", "days", "date", "inSeconds", "enabled", "sound", "tags"])
            .union(Alarm.settings.map(\.key))
        if let unknown = try decoder.container(keyedBy: SettingKey.self).allKeys.map(\.stringValue)
            .filter({ !known.contains($0) }).sorted().first
        {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + [SettingKey(unknown)],
                    debugDescription:
                        "alarm: unknown setting \"\(unknown)\"; the settings are \(known.sorted().joined(separator: ", "))"
                ))
        }
    }
}

/// The fields of a reminder a client sets: `reminder add` needs text and a time, `reminder edit`
/// changes only what is given.
public struct ReminderSpec: Codable, Sendable, Equatable {
    public var text: String?
    /// A second line under the title; the empty string removes it.
    public var body: String?
    public var time: LocalTime?
    public var days: DaySet?
    /// `YYYY-MM-DD`, `today` or `tomorrow`: once, on that date.
    public var date: String?
    public var enabled: Bool?
    /// A sound file; the empty string means the built-in chime.
    public var sound: String?
    /// Replaces the follow-ups (an empty list removes them).
    public var followUps: [FollowUp]?
    /// A shell command; the empty string removes it.
    public var unless: String?
    /// The person it is for, a user name of this machine; the empty string: the household.
    public var person: String?
    /// Silent on a day an override turns every alarm off (`--with-alarms`), or not.
    public var withAlarms: Bool?

    public init() {}
}

extension DayChange: Codable {
    /// `"off"`, or the time as `"HH:MM"`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text == "off" {
            self = .off
            return
        }
        do {
            self = .at(try LocalTime.parse(text))
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .off: try container.encode("off")
        case .at(let time): try container.encode(time.description)
        }
    }
}
