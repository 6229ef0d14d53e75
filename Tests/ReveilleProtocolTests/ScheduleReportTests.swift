import Foundation
import ReveilleCore
import Testing

@testable import ReveilleProtocol

@Suite struct ScheduleReportTests {
    @Test func plainRingsTravelAsTheirIdAndExpandWithTheAlarmsTime() {
        var day = ScheduleDay(date: "2026-11-23", weekday: "Mon")
        day.append(.plainRing(3))
        day.append(ScheduleDay.Entry(time: "09:00", alarmID: 4, layer: .rule, rings: true, note: "rule #2"))
        day.append(
            ScheduleDay.Entry(time: "07:00", alarmID: 5, layer: .override, rings: false, note: "override #1: off"))
        #expect(day.lines == "3;09:00|4|rule|r|rule #2;07:00|5|override|s|override #1: off")
        let report = ScheduleReport(labels: ["3": "work", "4": "", "5": "gym"], times: ["3": "06:45"], days: [day])
        #expect(report.rows.map(\.time) == ["06:45", "09:00", "07:00"])
        #expect(report.rows.map(\.layer) == [.base, .rule, .override])
        #expect(report.rows.map(\.rings) == [true, true, false])
        #expect(report.rows.map(\.label) == ["work", "", "gym"])
    }

    @Test func notesCannotBreakTheFormatOrNeedJSONEscapes() {
        var day = ScheduleDay(date: "2026-12-25", weekday: "Fri")
        let note = "holiday: Saints; Peter|Paul \"and\" \\ friends\tx\ny"
        day.append(ScheduleDay.Entry(time: "06:00", alarmID: 1, layer: .holiday, rings: false, note: note))
        day.append(.plainRing(2))
        #expect(day.entries.count == 2)
        #expect(day.entries[0].note == "holiday: Saints, Peter/Paul 'and' ' friends x y")
        let json = Framing.encode(day)
        #expect(!json.contains(0x5C))  // no backslash: the decoder stays on its fast path
    }

    @Test func aDayWithNothingKeepsItsReason() {
        let report = ScheduleReport(days: [ScheduleDay(date: "2026-11-22", weekday: "Sun", note: "nothing set")])
        #expect(report.rows.count == 1)
        #expect(report.rows[0].note == "nothing set")
        #expect(report.rows[0].alarmID == nil)
    }
}
