import ReveilleCore

// Reminders, their chimes, and calendars.

/// A reminder, as `reminder list` shows it.
public struct ReminderInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var text: String
    /// The line under the title.
    public var body: String?
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
    /// Whom it is for (`--for`); nil: the household.
    public var person: String?
    /// Silent on a day an override turns every alarm off; nil: not (it chimes on such a day).
    public var withAlarms: Bool?

    public init(
        id: Int, text: String, body: String? = nil, time: String, days: String?, date: String?, enabled: Bool,
        sound: String?, followUps: [String], unless: String?, next: String?
    ) {
        self.id = id
        self.text = text
        self.body = body
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
    /// The line under it: a reminder's body, or `starting in 15 minutes, at Hauptstraße 5`.
    public var detail: String?
    /// What set it: `reminder #3`, `calendar school, 15 min before`.
    public var origin: String
    /// When it was due: `16:00`.
    public var due: String
    /// Whom it is for: their notifier shows it (nil: the household's).
    public var user: String?
    /// What `reminder again` names it by.
    public var key: String?

    public init(text: String, origin: String, due: String, detail: String? = nil) {
        self.text = text
        self.detail = detail
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
    /// Whom a reminder calendar's chimes are for (`--for`); nil: the household.
    public var person: String?
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
    /// A holiday calendar's filter: `all-day events matching holiday|break`.
    public var filter: String?
    /// A holiday calendar's events from today on that are holidays, and those its filter leaves
    /// out, each with why (`2026-12-03 Back-to-school night: a timed event`; at most 20).
    public var kept: Int?
    public var dropped: [String]?
    /// A web calendar's fetcher: when it last fetched (or was told nothing changed), when it
    /// tries by itself next, about (`YYYY-MM-DD HH:MM`), and when a fetch now was asked for
    /// that it has not tried yet (`calendar refresh --background`).
    public var fetchedAt: String?
    public var nextFetch: String?
    public var fetchAsked: String?

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
