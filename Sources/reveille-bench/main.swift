import Foundation
import ReveilleCore
import ReveilleProtocol

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

let alarmCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let state = buildState(alarms: alarmCount)
let zone = Zone(builtIn: "Europe/Berlin")!
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
    "engine: \(alarmCount) alarms x 365 days: \(decisions) decisions (\(rings) rings), median \(String(format: "%.3f", median)) s over \(timings.count) runs"
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
    "compact \(String(format: "%.1f", compactFigures.milliseconds)) ms (\(compactFigures.bytes / 1024) KiB)"
let plainText =
    "one object per alarm-day \(String(format: "%.1f", plainFigures.milliseconds)) ms (\(plainFigures.bytes / 1024) KiB)"
print(
    "next on the wire, 200 alarms x 365 days (\(plain.count) alarm-days), encode + decode: \(compactText), \(plainText)"
)
