/// A reminder set by the clock, without a calendar (`reveille reminder add`): a chime with a line
/// of text at a time of day, on some weekdays or on one date, with follow-ups after it.
public struct Reminder: Hashable, Sendable, Identifiable {
    public var id: Int
    /// Its title: what the chime says first.
    public var text: String
    /// A second line under the title, optional: "Reflect on your training…".
    public var body: String?
    public var time: LocalTime
    public var repeats: Repeat
    public var enabled: Bool
    /// A sound file; nil means the built-in chime.
    public var sound: String?
    /// Chimes that follow each occurrence (`--then 2h "how did it go?"`).
    public var followUps: [FollowUp]
    /// A command run through `/bin/sh -c` when a chime is due; exit status 0 skips that chime.
    public var unless: String?
    /// The person it is for (`--for kid1`, a user name of this machine): their desktop shows it
    /// too, and the chime hook names them. Nil: the household's, heard in the room.
    public var person: String?
    /// Silent, with its follow-ups, on a day a date override turns every alarm off
    /// (`--with-alarms`). Otherwise a day off from the alarms is not a day off from reminders.
    public var withAlarms: Bool

    public init(
        id: Int, text: String, time: LocalTime, repeats: Repeat, enabled: Bool = true, sound: String? = nil,
        followUps: [FollowUp] = [], unless: String? = nil, body: String? = nil, person: String? = nil,
        withAlarms: Bool = false
    ) {
        self.id = id
        self.withAlarms = withAlarms
        self.person = person
        self.text = text
        self.body = body
        self.time = time
        self.repeats = repeats
        self.enabled = enabled
        self.sound = sound
        self.followUps = followUps
        self.unless = unless
    }

    /// `#3 check-in`.
    public var name: String { "#\(id) \(text)" }

    /// `2 h`, `90 min` → `1 h 30 min`: how long after its reminder a follow-up comes.
    public static func after(_ seconds: Int) -> String {
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// A person's user name as `--for` takes it: a login name's letters (what the notifier and
    /// the hook get, so nothing else). Whether the machine has that user is the daemon's check.
    public static func checkPerson(_ name: String) throws(InputError) -> String {
        guard (1...32).contains(name.count), name.first.map({ $0.isASCII && ($0.isLetter || $0 == "_") }) == true,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw InputError("--for \(Sanitized.line(name)): give a user name of this machine, like kid1")
        }
        return name
    }

    /// The most follow-ups one reminder takes, and how far after it the last may come.
    public static let maxFollowUps = 5
    public static let maxFollowUpSeconds = 86_400
}

/// A chime some time after a reminder's own.
public struct FollowUp: Hashable, Sendable, Codable {
    public var afterSeconds: Int
    public var text: String

    public init(afterSeconds: Int, text: String) {
        self.afterSeconds = afterSeconds
        self.text = text
    }
}

/// One chime due at one instant: a reminder's occurrence, one of its follow-ups, or a calendar
/// event's reminder. Its key names it across restarts and calendar refreshes, so that it is never
/// played twice.
public struct Chime: Hashable, Sendable, Codable {
    /// `reminder:3:0@1764255600` (reminder 3, its own chime (0) or a follow-up (1...), on the
    /// occurrence due then), or `calendar:2:UID:RECURRENCE:15` (calendar 2, the event and occurrence
    /// as iCalendar names them, `single` for an event that does not recur, 15 minutes before): an
    /// event moved after its chime played does not chime again for that offset.
    public var key: String
    public var instant: Int
    /// The title: a reminder's text, a follow-up's, or a calendar event's SUMMARY.
    public var text: String
    /// A reminder's body (its own chime only; a follow-up has its text alone).
    public var body: String?
    /// A calendar event's LOCATION.
    public var location: String?
    /// A sound file; nil means the built-in chime.
    public var sound: String?
    public var unless: String?
    /// What set it: `reminder #3`, `calendar school, 15 min before`.
    public var origin: String
    /// The local date whose pause or date override decides whether it plays (a follow-up goes with
    /// its reminder's day).
    public var day: CivilDate
    /// A calendar chime's distance from its event's start, in minutes (0: at the start); nil for
    /// a reminder of the clock's own.
    public var minutesBefore: Int?
    /// Whom it is for (`Reminder.person`); nil: the household.
    public var person: String?
    /// Silent on a day an override turns every alarm off (`Reminder.withAlarms`); nil: not.
    public var withAlarms: Bool?

    public init(
        key: String, instant: Int, text: String, sound: String?, unless: String?, origin: String, day: CivilDate,
        minutesBefore: Int? = nil, body: String? = nil, location: String? = nil, person: String? = nil,
        withAlarms: Bool = false
    ) {
        self.withAlarms = withAlarms ? true : nil
        self.person = person
        self.minutesBefore = minutesBefore
        self.body = body
        self.location = location
        self.key = key
        self.instant = instant
        self.text = text
        self.sound = sound
        self.unless = unless
        self.origin = origin
        self.day = day
    }

    /// The line under its title, on the page's banner and in `status --watch`: a reminder's body,
    /// or a calendar event's `starting in 15 minutes, at Hauptstraße 5`. Nil when there is none.
    public var detail: String? {
        guard let minutesBefore else { return body }
        let when = minutesBefore == 0 ? "starting now" : "starting in \(counted(minutesBefore, "minute"))"
        return location.map { "\(when), at \($0)" } ?? when
    }

    /// How long "again" waits (the calendar design's "again in 10 minutes").
    public static let againSeconds = 600

    /// How long a chime asked for again is kept after it was due: a week, as far as the machine
    /// looks back after a gap.
    public static let againKeptSeconds = 7 * 86_400

    /// This chime once more, `againSeconds` after `now` ("again in 10 minutes"): the same title,
    /// line, sound and person, under a key of its own (`again:KEY@INSTANT`), on the day it then
    /// falls on. Its `--unless` command is not asked again: the person asked for it.
    public func again(now: Int, zone: Zone) -> Chime {
        let instant = now + Chime.againSeconds
        var copy = Chime(
            key: "again:\(key)@\(instant)", instant: instant, text: text, sound: sound, unless: nil,
            origin: "again: \(origin)", day: ZoneResolver(zone: zone).local(at: instant).date, body: body,
            location: location, person: person)
        // An event's line counts down from the new instant: "starting in 5 minutes", or how long ago it began.
        if let minutesBefore {
            let left = minutesBefore - Chime.againSeconds / 60
            if left >= 0 {
                copy.minutesBefore = left
            } else {
                copy.body = "it started \(counted(-left, "minute")) ago" + (location.map { ", at \($0)" } ?? "")
            }
        }
        return copy
    }
}

/// How a due chime ended, as the store keeps it.
public enum ChimeOutcome: String, Hashable, Sendable, Codable {
    case played
    /// Its `--unless` command exited 0.
    case skipped
    /// Found more than the grace period late (the daemon was down, the clock jumped).
    case missed
}

/// Which chimes fall in a span: schedule reminders expanded on the wall clock of the zone, calendar
/// reminders as computed from their events, less those on paused days and, for a reminder that
/// says so (`withAlarms`), on days a date override turns every alarm off: an override silences
/// alarms, not the day's reminders. Pure: the machine and `next` both ask it.
public struct ReminderPlan {
    public let reminders: [Reminder]
    /// Calendar reminders, sorted by instant (as `CalendarReminders.sorted` leaves them).
    public let calendarChimes: [Chime]
    public let master: MasterSwitch
    /// Dates on which an override turns every alarm off.
    private let silentDays: Set<CivilDate>
    /// Every reminder switched off (`reveille reminders off`).
    private let switchedOff: Bool
    private var zone: ZoneResolver

    public init(state: ScheduleState, zone: Zone) {
        reminders = state.reminders.filter(\.enabled)
        calendarChimes = state.calendarChimes
        master = state.master
        silentDays = Set(state.overrides.filter { $0.alarmID == nil && $0.change == .off }.map(\.date))
        switchedOff = !state.remindersOn
        self.zone = ZoneResolver(zone: zone)
    }

    /// Whether `chime` plays: not paused, and not silenced by an override for all alarms when
    /// its reminder goes with the alarms.
    public func plays(_ chime: Chime) -> Bool { silence(of: chime) == nil }

    /// Why `chime` does not play, or nil when it does.
    public func silence(of chime: Chime) -> String? {
        if switchedOff { return "reminders are off" }
        if !master.allows(chime.day) { return "paused" }
        if chime.withAlarms == true && silentDays.contains(chime.day) { return "override: all alarms off" }
        return nil
    }

    /// Chimes due after `after` and at or before `through`, in order; with `all`, also those a pause
    /// or an override silences.
    public mutating func chimes(after: Int, through: Int, all: Bool = false) -> [Chime] {
        guard through > after, all || !switchedOff else { return [] }
        var result: [Chime] = []
        // Follow-ups come up to a day after their reminder: start a day early.
        let longest = reminders.flatMap(\.followUps).map(\.afterSeconds).max() ?? 0
        let first = zone.local(at: after - longest).date.adding(days: -1)
        let last = zone.local(at: through).date.adding(days: 1)
        for reminder in reminders {
            for day in occurrenceDays(of: reminder, from: first, through: last) {
                let base = zone.resolve(day, reminder.time).instant
                for chime in chimes(of: reminder, on: day, at: base)
                where chime.instant > after && chime.instant <= through {
                    result.append(chime)
                }
            }
        }
        let start = firstIndex(after: after)
        for chime in calendarChimes[start...] {
            guard chime.instant <= through else { break }
            result.append(chime)
        }
        if !all { result.removeAll { !plays($0) } }
        return result.sorted { ($0.instant, $0.key) < ($1.instant, $1.key) }
    }

    /// The first chime that plays after `after`, looking at most `horizonDays` ahead.
    public mutating func next(after: Int, horizonDays: Int = 400) -> Chime? {
        guard !switchedOff else { return nil }
        // A week at a time: most households have a reminder within one.
        var from = after
        for _ in 0..<((horizonDays + 6) / 7) {
            let through = from + 7 * 86_400
            if let chime = chimes(after: from, through: through).first { return chime }
            from = through
        }
        return nil
    }

    /// The chimes after `instant` through the end of the local day `last` (`next`'s days), each
    /// with why it will not play if so (`silence(on:)`); those already `played` (even when their
    /// event moved later) are left out.
    public static func chimesAhead(
        in state: ScheduleState, zone: Zone, after instant: Int, through last: CivilDate, played: Set<String>
    ) -> [(chime: Chime, silenced: String?)] {
        var plan = ReminderPlan(state: state, zone: zone)
        let through = plan.zone.resolve(last.adding(days: 1), LocalTime.midnight).instant - 1
        return plan.chimes(after: instant, through: through, all: true).filter { !played.contains($0.key) }.map {
            ($0, plan.silence(of: $0))
        }
    }

    /// The first chime that plays after `instant` in `state` (`status`'s next reminder).
    public static func next(in state: ScheduleState, zone: Zone, after instant: Int) -> Chime? {
        var plan = ReminderPlan(state: state, zone: zone)
        return plan.next(after: instant)
    }

    /// The next chime of `reminder` alone after `instant`, in `state` (its pause, its overrides).
    public static func next(of reminder: Reminder, in state: ScheduleState, zone: Zone, after instant: Int) -> Chime? {
        var only = state
        only.reminders = [reminder]
        only.calendarChimes = []
        return next(in: only, zone: zone, after: instant)
    }

    /// A reminder's own chime and its follow-ups, for its occurrence on `day` due at `base`.
    public func chimes(of reminder: Reminder, on day: CivilDate, at base: Int) -> [Chime] {
        let own = Chime(
            key: "reminder:\(reminder.id):0@\(base)", instant: base, text: reminder.text, sound: reminder.sound,
            unless: reminder.unless, origin: "reminder #\(reminder.id)", day: day, body: reminder.body,
            person: reminder.person, withAlarms: reminder.withAlarms)
        return [own]
            + reminder.followUps.enumerated().map { index, followUp in
                Chime(
                    key: "reminder:\(reminder.id):\(index + 1)@\(base)", instant: base + followUp.afterSeconds,
                    text: followUp.text, sound: reminder.sound, unless: reminder.unless,
                    origin: "reminder #\(reminder.id), \(Reminder.after(followUp.afterSeconds)) after",
                    day: day, person: reminder.person, withAlarms: reminder.withAlarms)
            }
    }

    private func occurrenceDays(of reminder: Reminder, from first: CivilDate, through last: CivilDate) -> [CivilDate] {
        switch reminder.repeats {
        case .once(let date):
            return date >= first && date <= last ? [date] : []
        case .weekly(let days):
            guard first <= last else { return [] }
            return (0...(last.dayNumber - first.dayNumber)).map { first.adding(days: $0) }.filter {
                days.contains($0.weekday)
            }
        }
    }

    /// The index of the first calendar chime after `after` (binary search).
    private func firstIndex(after: Int) -> Int {
        var low = 0
        var high = calendarChimes.count
        while low < high {
            let middle = (low + high) / 2
            if calendarChimes[middle].instant <= after { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Calendar events as chimes: a reminder calendar chimes a set number of minutes before each timed
/// event; an event with its own VALARM triggers chimes at those instead.
public enum CalendarReminders {
    public static func chimes(
        calendarID: Int, name: String, occurrences: [CalendarOccurrence], minutes: [Int], sounds: [Int: String],
        zone: Zone, person: String? = nil
    ) -> [Chime] {
        let resolver = ZoneResolver(zone: zone)
        var result: [Chime] = []
        for occurrence in occurrences {
            guard let start = occurrence.start else { continue }  // all-day: no time to count back from
            let offsets = occurrence.alarmMinutes ?? minutes
            for offset in Set(offsets).sorted(by: >) {
                let instant = start - offset * 60
                result.append(
                    Chime(
                        key:
                            "calendar:\(calendarID):\(occurrence.uid):\(occurrence.recurrence.map(String.init) ?? "single"):\(offset)",
                        instant: instant,
                        text: occurrence.summary, sound: sounds[offset], unless: nil,
                        origin: "calendar \(name), \(offset == 0 ? "at the start" : "\(offset) min before")",
                        day: resolver.local(at: instant).date, minutesBefore: offset, location: occurrence.location,
                        person: person))
            }
        }
        return sorted(result)
    }

    /// Chimes in the order the plan needs them.
    public static func sorted(_ chimes: [Chime]) -> [Chime] {
        chimes.sorted { ($0.instant, $0.key) < ($1.instant, $1.key) }
    }
}
