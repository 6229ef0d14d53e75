import Foundation
import ReveilleCore

func date(_ text: String) -> CivilDate { try! CivilDate.parse(text) }
func time(_ text: String) -> LocalTime { try! LocalTime.parse(text) }
func zone(_ name: String) -> Zone { Zone(builtIn: name)! }

/// Seconds since the epoch of an ISO 8601 UTC instant like `2026-03-08T07:00:00Z`.
func utc(_ text: String) -> Int {
    let formatter = ISO8601DateFormatter()
    return Int(formatter.date(from: text)!.timeIntervalSince1970)
}

func daily(_ id: Int, _ at: String, label: String = "", skipHolidays: Bool = false) -> Alarm {
    Alarm(id: id, label: label, time: time(at), repeats: .weekly(.daily), skipHolidays: skipHolidays)
}
