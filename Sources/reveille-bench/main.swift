import Foundation
import ReveilleCore

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
let zone = TimeZone(identifier: "Europe/Berlin")!
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
