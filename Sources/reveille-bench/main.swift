import FoundationEssentials
import Glibc
import ReveilleCalendar
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import CSQLite

// The schedule engine alone: 10,000 alarms × 365 days, with weekly rules and date overrides,
// in Europe/Berlin (two DST transitions in the year). Prints the median of several runs.

func buildState(alarms count: Int) -> ScheduleState {
    var generator = SplitMix(seed: 42)
    let daySets: [DaySet] = [.daily, .weekdays, .weekends, DaySet([.monday, .wednesday, .friday])]
    let start = CivilDate(year: 2026, month: 1, day: 1)!
    var alarms: [Alarm] = []
    for id in 1...count {
        let time = LocalTime(secondsOfDay: Int(generator.next() % 1440) * 60)!
        let repeats: Repeat =
            id % 10 == 0
            ? .once(start.adding(days: Int(generator.next() % 365))) : .weekly(daySets[Int(generator.next() % 4)])
        alarms.append(Alarm(id: id, time: time, repeats: repeats, skipHolidays: id % 3 == 0))
    }
    let rules = [
        WeeklyRule(id: 1, alarmID: nil, days: DaySet([.saturday]), change: .at(LocalTime(hour: 9, minute: 0)!)),
        WeeklyRule(id: 2, alarmID: 5, days: DaySet([.friday]), change: .off),
    ]
    let overrides = (0..<50).map { index in
        DateOverride(
            id: index + 1, alarmID: index % 2 == 0 ? nil : index, date: start.adding(days: index * 7),
            change: index % 3 == 0 ? .off : .at(LocalTime(hour: 8, minute: 30)!))
    }
    let holidays = [start: "New Year", start.adding(days: 358): "Christmas"]
    return ScheduleState(alarms: alarms, rules: rules, overrides: overrides, holidays: holidays)
}

/// A small deterministic generator, so runs compare.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A school-and-holidays calendar of five years, about 2,000 events: single all-day days and
/// multi-day breaks, weekly timed events in another zone for a term of `weeks` weeks (with an
/// EXDATE each), yearly holidays (with an RDATE), and occurrences moved by RECURRENCE-ID.
func fiveYearCalendar(weeks: Int = 12) -> String {
    var generator = SplitMix(seed: 7)
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reveille bench//EN"]
    let start = CivilDate(year: 2026, month: 1, day: 1)!
    func compact(_ date: CivilDate) -> String { date.description.replacing("-", with: "") }
    for index in 0..<1_700 {
        let day = start.adding(days: Int(generator.next() % 1_826))
        let length = index % 10 == 0 ? 5 : 1
        lines += [
            "BEGIN:VEVENT", "UID:day-\(index)", "SUMMARY:Day \(index)", "DTSTART;VALUE=DATE:\(compact(day))",
            "DTEND;VALUE=DATE:\(compact(day.adding(days: length)))", "END:VEVENT",
        ]
    }
    for index in 0..<200 {
        let day = start.adding(days: Int(generator.next() % 365))
        lines += [
            "BEGIN:VEVENT", "UID:weekly-\(index)", "SUMMARY:Club \(index)",
            "DTSTART;TZID=America/New_York:\(compact(day))T170000",
            "DTEND;TZID=America/New_York:\(compact(day))T180000", "RRULE:FREQ=WEEKLY;COUNT=\(weeks)",
            "EXDATE;TZID=America/New_York:\(compact(day.adding(days: 14)))T170000", "END:VEVENT",
        ]
        if index % 4 == 0 {
            lines += [
                "BEGIN:VEVENT", "UID:weekly-\(index)",
                "RECURRENCE-ID;TZID=America/New_York:\(compact(day.adding(days: 7)))T170000",
                "SUMMARY:Club \(index) (moved)", "DTSTART;TZID=America/New_York:\(compact(day.adding(days: 9)))T170000",
                "DURATION:PT1H", "END:VEVENT",
            ]
        }
    }
    for index in 0..<50 {
        let day = start.adding(days: Int(generator.next() % 365))
        lines += [
            "BEGIN:VEVENT", "UID:yearly-\(index)", "SUMMARY:Holiday \(index)", "DTSTART;VALUE=DATE:\(compact(day))",
            "RRULE:FREQ=YEARLY;COUNT=5", "RDATE;VALUE=DATE:\(compact(day.adding(days: 3)))", "END:VEVENT",
        ]
    }
    return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

/// A household's holiday calendar of five years: ten public holidays a year (yearly rules) and
/// five school breaks a year of one to two weeks: about 60 holiday days a year.
func householdHolidays() -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reveille bench//EN"]
    func compact(_ date: CivilDate) -> String { date.description.replacing("-", with: "") }
    let start = CivilDate(year: 2026, month: 1, day: 1)!
    for index in 0..<10 {
        lines += [
            "BEGIN:VEVENT", "UID:public-\(index)", "SUMMARY:Public holiday \(index + 1)",
            "DTSTART;VALUE=DATE:\(compact(start.adding(days: index * 36 + 3)))", "RRULE:FREQ=YEARLY;COUNT=5",
            "END:VEVENT",
        ]
    }
    for year in 0..<5 {
        for term in 0..<5 {
            let first = start.adding(days: year * 365 + term * 73 + 40)
            lines += [
                "BEGIN:VEVENT", "UID:break-\(year)-\(term)", "SUMMARY:School break \(term + 1)",
                "DTSTART;VALUE=DATE:\(compact(first))", "DTEND;VALUE=DATE:\(compact(first.adding(days: 7 + term * 2)))",
                "END:VEVENT",
            ]
        }
    }
    return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

/// A household's reminder calendar of two years from now: training twice a week (a weekly rule),
/// a monthly appointment with its own alarm (VALARM, 2 hours before), and 300 one-off events; all
/// start at the hour three hours from now (UTC), so that no chime falls in the next two hours.
func householdReminders() -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reveille bench//EN"]
    let now = Int(Date().timeIntervalSince1970)
    let hour = (now / 3600 + 3) % 24
    let today = CivilDate(dayNumber: now / 86_400)
    func stamp(_ date: CivilDate) -> String {
        date.description.replacing("-", with: "") + "T" + NumberText.padded(hour, width: 2) + "0000Z"
    }
    let first = today.adding(days: 1)
    lines += [
        "BEGIN:VEVENT", "UID:training", "SUMMARY:Training", "DTSTART:\(stamp(first))",
        "RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=208", "END:VEVENT",
        "BEGIN:VEVENT", "UID:appointment", "SUMMARY:Appointment", "DTSTART:\(stamp(first.adding(days: 2)))",
        "RRULE:FREQ=MONTHLY;COUNT=24", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Appointment",
        "TRIGGER:-PT2H", "END:VALARM", "END:VEVENT",
    ]
    for index in 0..<300 {
        lines += [
            "BEGIN:VEVENT", "UID:event-\(index)", "SUMMARY:Event \(index)",
            "DTSTART:\(stamp(first.adding(days: index * 730 / 300)))", "END:VEVENT",
        ]
    }
    return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

// `reveille-bench calendar FILE` (the 2,000 events), `holidays FILE` or `reminders FILE`: writes it
// for the scripts and stops.
if CommandLine.arguments.count == 3, ["calendar", "holidays", "reminders"].contains(CommandLine.arguments[1]) {
    let text =
        switch CommandLine.arguments[1] {
        case "calendar": fiveYearCalendar()
        case "holidays": householdHolidays()
        default: householdReminders()
        }
    try! text.write(toFile: CommandLine.arguments[2], atomically: true, encoding: .utf8)
    exit(0)
}

let alarmCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let state = buildState(alarms: alarmCount)
// The zone's rules from the system's tzdata, as the daemon reads them (the programs carry none of their own).
guard let zone = ZoneInfo.load("Europe/Berlin") else {
    fatalError("no tzdata for Europe/Berlin: apt-get install tzdata")
}
var timings: [Double] = []
var decisions = 0
var rings = 0
for _ in 0..<7 {
    let clock = ContinuousClock()
    var engine = ScheduleEngine(state: state, zone: zone)
    decisions = 0
    rings = 0
    let elapsed = clock.measure {
        engine.forEachDecision(from: CivilDate(year: 2026, month: 1, day: 1)!, days: 365) { decision in
            decisions += 1
            if decision.ringInstant != nil { rings += 1 }
        }
    }
    timings.append(elapsed.inSeconds)
}
timings.sort()
let median = timings[timings.count / 2]
print(
    "engine: \(alarmCount) alarms x 365 days: \(decisions) decisions (\(rings) rings), median \(NumberText.fixed(median, 3)) s over \(timings.count) runs"
)

// The `next` answer on the wire: a year of 200 alarms (73,000 alarm-days) as the compact
// `ScheduleReport` the daemon sends, against one JSON object per alarm-day (`[ScheduleRow]`, what
// `next --json` prints). Encode and decode, as the daemon and the CLI do; median of several runs.
let wireState = buildState(alarms: 200)
var wireEngine = ScheduleEngine(state: wireState, zone: zone)
let wireStart = CivilDate(year: 2026, month: 1, day: 1)!
var compact = ScheduleReport(
    labels: Dictionary(uniqueKeysWithValues: wireState.alarms.map { (String($0.id), $0.label) }),
    times: Dictionary(uniqueKeysWithValues: wireState.alarms.map { (String($0.id), $0.time.description) }))
compact.days = (0..<365).map { offset in
    let date = wireStart.adding(days: offset)
    return ScheduleDay(date: date.description, weekday: date.weekday.displayName)
}
var plain: [ScheduleRow] = []
wireEngine.forEachDecision(from: wireStart, days: 365) { decision in
    let rings = decision.ringInstant != nil
    let entry = ScheduleDay.Entry(
        time: decision.time.description, alarmID: decision.alarmID, layer: decision.layer, rings: rings,
        note: decision.note)
    let isPlain = decision.layer == .base && rings && decision.note.isEmpty
    compact.days[decision.date.dayNumber - wireStart.dayNumber].append(isPlain ? .plainRing(decision.alarmID) : entry)
    plain.append(
        ScheduleRow(
            date: decision.date.description, weekday: decision.date.weekday.displayName,
            time: decision.time.description, alarmID: decision.alarmID, label: "", layer: decision.layer, rings: rings,
            note: decision.note))
}

/// Median milliseconds to encode `value` and decode it back, and the encoded size.
func roundTrip<T: Codable>(_ value: T) -> (milliseconds: Double, bytes: Int) {
    var times: [Double] = []
    var bytes = 0
    for _ in 0..<7 {
        let elapsed = ContinuousClock().measure {
            let data = try! JSONEncoder().encode(value)
            bytes = data.count
            _ = try! JSONDecoder().decode(T.self, from: data)
        }
        times.append(elapsed.inSeconds * 1000)
    }
    return (times.sorted()[times.count / 2], bytes)
}
let compactFigures = roundTrip(compact)
let plainFigures = roundTrip(plain)
let compactText =
    "compact \(NumberText.fixed(compactFigures.milliseconds, 1)) ms (\(compactFigures.bytes / 1024) KiB)"
let plainText =
    "one object per alarm-day \(NumberText.fixed(plainFigures.milliseconds, 1)) ms (\(plainFigures.bytes / 1024) KiB)"
print(
    "next on the wire, 200 alarms x 365 days (\(plain.count) alarm-days), encode + decode: \(compactText), \(plainText)"
)

/// Median milliseconds of `body` over seven runs.
func median(_ body: () -> Void) -> Double {
    var times: [Double] = []
    for _ in 0..<7 { times.append(ContinuousClock().measure(body).inSeconds * 1000) }
    return times.sorted()[times.count / 2]
}

// A holiday calendar of five years: libical parses it, then it is expanded over those years. The
// weekly events run for a term (12 weeks), and, to show how the cost grows, for 200 weeks.
for weeks in [12, 200] {
    let calendarText = fiveYearCalendar(weeks: weeks)
    var occurrenceCount = 0
    let calendarMilliseconds = median {
        let occurrences = try! ICalendar.occurrences(
            in: calendarText, from: CivilDate(year: 2026, month: 1, day: 1)!,
            through: CivilDate(year: 2030, month: 12, day: 31)!, zone: zone)
        occurrenceCount = occurrences.count
    }
    let eventCount = calendarText.components(separatedBy: "BEGIN:VEVENT").count - 1
    print(
        "calendar: \(eventCount) events over five years, weekly ones for \(weeks) weeks (\(calendarText.utf8.count / 1024) KiB), parsed and expanded to \(occurrenceCount) occurrences: median \(NumberText.fixed(calendarMilliseconds, 1)) ms"
    )
}

// The zone's rules from the system's tzdata, read through glibc (at start and after an update).
let zoneMilliseconds = median { _ = ZoneInfo.load("Europe/Berlin") }
print(
    "zone rules: Europe/Berlin from \(ZoneInfo.load("Europe/Berlin")?.origin ?? "?"), 1970-2100: median \(NumberText.fixed(zoneMilliseconds, 1)) ms"
)

// The state's write (docs/guide/recovery.md, "When the state is damaged"): an alarm edited through the store as
// the daemon writes it (one transaction, synchronous=FULL, then the write-ahead log checkpointed
// before the answer), against a bare SQLite WAL commit of the same size without the checkpoint.
// On this machine's disk, under /var/tmp (a real file system, not tmpfs).
let stateFolder = "/var/tmp/reveille-bench-state-\(getpid())"
try! FileManager.default.createDirectory(atPath: stateFolder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: stateFolder) }
let store = try! Store(path: stateFolder + "/state.sqlite")
var edited = try! store.insert(Alarm(id: 0, time: LocalTime(hour: 6, minute: 45)!, repeats: .weekly(.weekdays)))
func medianOf(_ runs: Int, _ body: () -> Void) -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(ContinuousClock().measure(body).inSeconds * 1000) }
    return times.sorted()[times.count / 2]
}
let storeWrite = medianOf(51) {
    edited.volume = edited.volume == 80 ? 81 : 80
    _ = try! store.update(edited)
}
var bare: OpaquePointer?
sqlite3_open(stateFolder + "/bare.sqlite", &bare)
sqlite3_exec(
    bare, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (0)",
    nil, nil, nil)
let bareCommit = medianOf(51) { sqlite3_exec(bare, "UPDATE t SET v = v + 1", nil, nil, nil) }
let bareCheckpointed = medianOf(51) {
    sqlite3_exec(bare, "UPDATE t SET v = v + 1; PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
}
sqlite3_close(bare)
print(
    "state write: an alarm edited through the store (commit + checkpoint) median \(NumberText.fixed(storeWrite, 2)) ms; bare WAL commit \(NumberText.fixed(bareCommit, 2)) ms, with the checkpoint \(NumberText.fixed(bareCheckpointed, 2)) ms (51 runs each)"
)

// A large apps.toml: 5,000 apps checked (parsed, validated) and merged into a policy in force of
// as many, as the daemon does on a change; and 3,000 tables naming one path, each a problem with
// its line (the check found each line from the top of the file: 39.7 s before, a stalled daemon).
let validPolicy = (0..<5_000).map { "[[app]]\nname = \"a\($0)\"\npaths = [\"/usr/games/a\($0)\"]\nlimit_minutes = 30\n" }
    .joined()
let repeatedPolicy = (0..<3_000).map { "[[app]]\nname = \"a\($0)\"\npaths = [\"/bin/true\"]\n" }.joined()
let checkValid = medianOf(5) {
    let policy = try! AppPolicyFile.parse(TOMLDocument(path: "apps.toml", text: validPolicy))
    _ = AppPolicyMerge.merge(base: policy, file: policy, current: policy)
}
let checkRepeated = medianOf(5) {
    _ = AppPolicyFile.check(try! TOMLDocument(path: "apps.toml", text: repeatedPolicy))
}
print(
    "apps.toml: 5,000 apps checked and merged median \(NumberText.fixed(checkValid, 1)) ms; 3,000 tables repeating a path checked median \(NumberText.fixed(checkRepeated, 1)) ms (5 runs each)"
)
