import Foundation
import ReveilleCore
import Testing

@testable import ReveilleProtocol

/// What travels on the socket, to the byte: one payload per answer, under its kind; watch events
/// likewise; enums as their names.
@Suite struct WireShapeTests {
    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func aPayloadTravelsUnderItsKind() throws {
        let response = Response(payload: .tags([Tag(label: "hall", uid: "04A1B2C3", addedAt: 7)]))
        #expect(
            try json(response)
                == #"{"ok":true,"payload":{"tags":[{"addedAt":7,"label":"hall","uid":"04A1B2C3"}]},"v":1}"#)
        let back = try JSONDecoder().decode(Response.self, from: Data(try json(response).utf8))
        #expect(back == response && back.tags?.first?.label == "hall" && back.status == nil)
    }

    @Test func watchEventsTravelUnderTheirKind() throws {
        #expect(try json(WatchLine(.tagOnReader(true))) == #"{"event":{"tagOnReader":true},"v":1}"#)
        #expect(
            try json(WatchLine(.readerHealth(ReaderState(.absent("unplugged")))))
                == #"{"event":{"readerHealth":{"condition":"absent","detail":"unplugged"}},"v":1}"#)
        let missed = WatchLine(.missed(MissedInfo(alarmID: 3, label: "work", scheduledTime: "06:45")))
        #expect(try json(missed) == #"{"event":{"missed":{"alarmID":3,"label":"work","scheduledTime":"06:45"}},"v":1}"#)
        for line in [missed, WatchLine(.nextRing(nil)), WatchLine(.policyRejected("apps.toml:3: bad"))] {
            #expect(try JSONDecoder().decode(WatchLine.self, from: Data(try json(line).utf8)) == line)
        }
    }

    /// An alarm travels as the core's `Alarm`, its fields beside its next ring: the time as
    /// `HH:MM`, the repeat as `days` or `date`, every setting of `Alarm.settings` under its key.
    @Test func anAlarmTravelsFlatAndComesBackTheSame() throws {
        let weekly = Alarm(
            id: 3, label: "work", time: try LocalTime.parse("06:45"), repeats: .weekly(try DaySet.parse("mon-fri")),
            tags: ["hall"])
        let info = AlarmInfo(weekly, nextRing: nil, warnings: ["paused"])
        #expect(
            try json(info)
                == #"{"challenge":"math","commitSeconds":0,"days":"mon-fri","enabled":true,"escalateAfterSeconds":0,"fadeInSeconds":30,"id":3,"label":"work","laterSnoozeMinutes":[],"leadSeconds":0,"leadSound":false,"mathDifficulty":"medium","mathProblems":1,"maxSnoozes":3,"skipHolidays":false,"snoozeMinutes":9,"tags":["hall"],"time":"06:45","volume":80,"volumeCeiling":100,"wakeCheckSeconds":0,"warnings":["paused"]}"#
        )
        let once = AlarmInfo(
            Alarm(id: 4, time: try LocalTime.parse("07:30"), repeats: .once(try CivilDate.parse("2026-12-24"))),
            nextRing: nil)
        for value in [info, once] {
            #expect(try JSONDecoder().decode(AlarmInfo.self, from: Data(try json(value).utf8)) == value)
        }
        #expect(once.date == "2026-12-24" && once.days == nil && once.label == "")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                AlarmInfo.self, from: Data(try json(info).replacingOccurrences(of: "06:45", with: "25:99").utf8))
        }
    }

    /// `ok` is whether there is an error: a line where they disagree means nothing, and is refused.
    @Test func okIsExactlyTheAbsenceOfAnError() throws {
        let failure = Response.failure(.notFound, "no alarm #9")
        #expect(!failure.ok)
        #expect(try json(failure) == #"{"error":{"code":"not-found","message":"no alarm #9"},"ok":false,"v":1}"#)
        #expect(try JSONDecoder().decode(Response.self, from: Data(try json(failure).utf8)) == failure)
        for line in [
            #"{"v":1,"ok":true,"error":{"code":"internal","message":"x"}}"#, #"{"v":1,"ok":false}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(Response.self, from: Data(line.utf8)) }
        }
    }

    @Test func aPayloadOfTwoKindsIsRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Payload.self, from: Data(#"{"tags":[],"scan":{}}"#.utf8))
        }
    }
}

/// What the commitment gate judges (`ScheduleEdit.of`) is always a command the machine takes a new
/// schedule after (`Command.reach == .schedule`).
@Suite struct ScheduleEditTests {
    @Test func everyEditIsAScheduleCommand() throws {
        let today = CivilDate(year: 2026, month: 11, day: 27)!
        let commands: [Command] = [
            .status, .alarmList, .alarmAdd(spec: AlarmSpec()), .alarmEdit(id: 1, spec: AlarmSpec()),
            .alarmRemove(id: 1), .alarmSetEnabled(id: 1, enabled: false), .ruleList,
            .ruleAdd(alarmID: nil, days: .daily, change: .off), .ruleRemove(id: 1),
            .ruleEdit(id: 1, days: nil, change: .off, alarmID: nil, allAlarms: false), .overrideList,
            .overrideAdd(alarmID: nil, date: "2026-11-28", change: .off), .overrideRemove(id: 1),
            .overrideEdit(id: 1, date: nil, change: .off, alarmID: nil, allAlarms: true), .pause(until: nil),
            .pause(until: "2026-12-01"), .resume, .next(days: 7), .snooze, .tagRemove(label: "bath"),
            .tagAdd(label: "bath", uid: nil, timeoutSeconds: 30), .remindersSwitch(on: false), .dismissNext,
        ]
        for command in commands where try ScheduleEdit.of(command, today: today) != nil {
            #expect(command.reach == .schedule, "\(command.name)")
        }
        #expect(
            try ScheduleEdit.of(.pause(until: nil), today: today).map {
                if case .master(.off) = $0 { true } else { false }
            } == true)
        #expect(throws: InputError.self) {
            try ScheduleEdit.of(.overrideAdd(alarmID: nil, date: "soon", change: .off), today: today)
        }
        // A pause until today or before is refused by the edit itself: the gate and the handler
        // read the one answer.
        for until in ["2026-11-27", "2026-11-01"] {
            #expect(throws: InputError.self) { try ScheduleEdit.of(.pause(until: until), today: today) }
        }
    }

    /// Removing an alarm takes its rules, overrides and held rings with it, as the store's cascade
    /// does: the schedule the gate judges is the one the store then holds.
    @Test func removingAnAlarmTakesWhatIsItsAloneAsTheStoreDoes() throws {
        let today = CivilDate(year: 2026, month: 11, day: 27)!
        var state = ScheduleState(alarms: [
            Alarm(id: 1, time: LocalTime(hour: 6, minute: 45)!, repeats: .weekly(.daily)),
            Alarm(id: 2, time: LocalTime(hour: 7, minute: 0)!, repeats: .weekly(.daily)),
        ])
        state.rules = [
            WeeklyRule(id: 1, alarmID: 1, days: .daily, change: .off), WeeklyRule(id: 2, alarmID: nil, days: .daily, change: .off),
        ]
        state.overrides = [DateOverride(id: 1, alarmID: 1, date: today, change: .off)]
        state.heldAgainstHolidays = [HeldRing(alarmID: 1, date: today), HeldRing(alarmID: 2, date: today)]
        let after = try #require(
            try ScheduleEdit.removeAlarm(id: 1).applied(
                to: state,
                now: SpecNow(
                    instant: 1_795_755_600, date: today, time: LocalTime(hour: 5, minute: 0)!,
                    zone: Zone(builtIn: "Europe/Berlin")!)))
        #expect(after.alarms.map(\.id) == [2])
        #expect(after.rules.map(\.id) == [2])
        #expect(after.overrides.isEmpty)
        #expect(after.heldAgainstHolidays == [HeldRing(alarmID: 2, date: today)])
    }
}
