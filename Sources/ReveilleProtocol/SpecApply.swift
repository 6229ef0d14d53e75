import FoundationEssentials
import Glibc
import ReveilleCore

/// When a spec says something rings or chimes: a time, and days, a date or (alarms only) a delay.
/// `alarm add|edit` and `reminder add|edit` apply theirs the same way (`applyWhen`).
public protocol WhenSpec {
    var time: LocalTime? { get }
    var days: DaySet? { get }
    /// `YYYY-MM-DD`, `today` or `tomorrow`: once, on that date.
    var date: String? { get }
    /// Once, this many seconds from now (to the second).
    var inSeconds: Int? { get }
    /// What to say when more than one way of saying when is given.
    static var oneWhen: String { get }
}

extension AlarmSpec: WhenSpec {
    public static let oneWhen = "give one of --days (repeating), --date (one-shot) or --in (one-shot from now)"
}

extension ReminderSpec: WhenSpec {
    public var inSeconds: Int? { nil }
    public static let oneWhen = "give --days (repeating) or --date (once), not both"
}

/// Where a spec is applied: the instant, its local date and time, and the zone.
public struct SpecNow: Sendable {
    public var instant: Int
    public var date: CivilDate
    public var time: LocalTime
    public var zone: Zone

    public init(instant: Int, date: CivilDate, time: LocalTime, zone: Zone) {
        self.instant = instant
        self.date = date
        self.time = time
        self.zone = zone
    }
}

extension WhenSpec {
    /// Applies the when to `time` and `repeats`. A new time without days or a date keeps the
    /// repeat; a date in the past is refused; a new one with neither repeats as `newRepeat` says
    /// (an alarm: once, at the next such time; a reminder: every day).
    public func applyWhen(
        to time: inout LocalTime, _ repeats: inout Repeat, isNew: Bool, now: SpecNow,
        newRepeat: (LocalTime) -> Repeat
    ) throws(InputError) {
        let chosen = [days != nil, date != nil, inSeconds != nil].filter { $0 }.count
        guard chosen <= 1 else { throw InputError(Self.oneWhen) }
        if let seconds = inSeconds {
            guard (1...(7 * 86_400)).contains(seconds) else { throw InputError("--in: must be 1 second to 7 days") }
            guard self.time == nil else { throw InputError("give a time or --in, not both") }
            let local = ZoneResolver(zone: now.zone).local(at: now.instant + seconds)
            time = local.time
            repeats = .once(local.date)
            return
        }
        if let given = self.time { time = given }
        if let days {
            repeats = .weekly(days)
        } else if let date {
            repeats = try Repeat.once(date, at: time, now: (now.date, now.time))
        } else if isNew {
            repeats = newRepeat(time)
        }
    }
}

extension AlarmSpec {
    /// Applies the fields that are set to `alarm`: the when (`applyWhen`), then the rest.
    /// `checkSound` refuses a file the daemon could not play; `registeredTags` are the labels a
    /// `--tag` may name.
    public func apply(
        to alarm: inout Alarm, isNew: Bool, now: SpecNow, registeredTags: () throws -> Set<String>,
        checkSound: (String) throws -> Void
    ) throws {
        try applyWhen(to: &alarm.time, &alarm.repeats, isNew: isNew, now: now) { time in
            Repeat.next(time, now: (now.date, now.time))
        }
        if let label { alarm.label = label }
        if let enabled { alarm.enabled = enabled }
        if let sound {
            if !sound.isEmpty { try checkSound(sound) }
            alarm.sound = sound.isEmpty ? nil : sound
        }
        if let tags {
            let registered = try registeredTags()
            if let unknown = tags.first(where: { !registered.contains($0) }) {
                throw InputError(
                    "--tag \"\(unknown)\" is not a registered tag; see 'reveille tag list' or add it with 'reveille tag add --label \(unknown)'"
                )
            }
            alarm.tags = tags
        }
        if let wrong = alarm.set(settings) {
            throw InputError("\(wrong.option): not a value it takes; see 'reveille alarm add --help'")
        }
        // One snooze length given is every snooze's; a sunrise turned off takes its sound along.
        if self.snoozeMinutes != nil, self.laterSnoozeMinutes == nil { alarm.laterSnoozeMinutes = [] }
        if alarm.leadSeconds == 0, self.leadSound != true { alarm.leadSound = false }
        try alarm.validate()
    }
}

extension ReminderSpec {
    /// Applies the fields that are set to `reminder`: the text, the when (`applyWhen`), the rest.
    public func apply(to reminder: inout Reminder, isNew: Bool, now: SpecNow, checkSound: (String) throws -> Void)
        throws
    {
        if let text {
            let trimmed = text.trimmed()
            guard !trimmed.isEmpty, trimmed.count <= 200 else {
                throw InputError("the reminder's text must be 1-200 characters")
            }
            // Shown on terminals and in the log, and spoken: no line break or escape sequence.
            guard Sanitized.line(trimmed) == trimmed else {
                throw InputError(
                    "the reminder's text: control characters are not allowed; use letters, digits, spaces and punctuation"
                )
            }
            reminder.text = trimmed
        }
        if let body {
            let trimmed = body.trimmed()
            guard trimmed.count <= 500 else { throw InputError("--body: at most 500 characters") }
            guard Sanitized.line(trimmed) == trimmed else {
                throw InputError(
                    "--body: control characters and line breaks are not allowed; write it as one line")
            }
            reminder.body = trimmed.isEmpty ? nil : trimmed
        }
        if let person { reminder.person = person.isEmpty ? nil : try Reminder.checkPerson(person) }
        if let withAlarms { reminder.withAlarms = withAlarms }
        if let days, days.isEmpty { throw InputError("--days: give at least one day, like mon,wed,fri") }
        try applyWhen(to: &reminder.time, &reminder.repeats, isNew: isNew, now: now) { _ in .weekly(.daily) }
        if let enabled { reminder.enabled = enabled }
        if let sound {
            if !sound.isEmpty { try checkSound(sound) }
            reminder.sound = sound.isEmpty ? nil : sound
        }
        if let followUps {
            guard followUps.count <= Reminder.maxFollowUps else {
                throw InputError("--then: at most \(Reminder.maxFollowUps) follow-ups")
            }
            for followUp in followUps {
                guard (60...Reminder.maxFollowUpSeconds).contains(followUp.afterSeconds) else {
                    throw InputError(
                        "--then \(Reminder.after(followUp.afterSeconds)): a follow-up comes 1 minute to 24 hours after the reminder"
                    )
                }
                guard !followUp.text.trimmed(newlines: false).isEmpty else {
                    throw InputError("--then: give the follow-up's text, like --then 2h \"how did it go?\"")
                }
                guard Sanitized.line(followUp.text) == followUp.text else {
                    throw InputError("--then: control characters are not allowed in the follow-up's text")
                }
            }
            reminder.followUps = followUps
        }
        if let unless {
            guard unless.count <= 1000, !unless.contains("\0") else {
                throw InputError("--unless: the command must be at most 1000 characters")
            }
            reminder.unless = unless.trimmed(newlines: false).isEmpty ? nil : unless
        }
    }
}
