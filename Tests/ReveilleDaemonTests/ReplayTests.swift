import Foundation
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import Testing

@testable import ReveilleDaemon

/// Requests and events are values: a household's day is kept as a journal (JSON lines, one input
/// with its instant per line), and the journal replayed into a fresh daemon decides the same
/// actions, in the same order, and leaves the same history (docs/ARCHITECTURE.md, "Replaying a
/// day").
@Suite struct ReplayTests {
    typealias Clock = InProcessRingTests.Clock

    /// One input of the day.
    enum Input: Codable, Equatable {
        /// A request on the control socket, with the asker's rights.
        case request(Command, role: Role)
        /// The wake timer fired.
        case tick
        /// A tag was tapped on the reader, and lifted.
        case tap(uid: String)
    }

    /// A line of the journal: the wall clock's reading, and what came in then.
    struct Line: Codable, Equatable {
        var at: Double
        var input: Input
    }

    /// Applies `input` to `clock` at `at` (the wall clock is moved there first).
    @discardableResult
    static func apply(_ line: Line, to clock: Clock) -> Response? {
        clock.wall.advance(line.at - clock.wall.now().timeIntervalSince1970)
        switch line.input {
        case .request(let command, let role): return clock.daemon.request(command, role: role)
        case .tick: clock.daemon.controller.tick()
        case .tap(let uid):
            clock.daemon.requests.handlers.tags.tagPlaced(UID.parse(uid)!, fresh: true)
            clock.daemon.controller.tagLifted()
        }
        return nil
    }

    /// Lives a day on `clock`, writing each input to `journal` as it is applied.
    final class Household {
        let clock: Clock
        private(set) var journal: [Line] = []

        init(_ clock: Clock) { self.clock = clock }

        @discardableResult
        func run(_ input: Input, at: Double? = nil) -> Response? {
            let line = Line(at: at ?? clock.wall.now().timeIntervalSince1970, input: input)
            journal.append(line)
            return ReplayTests.apply(line, to: clock)
        }

        func ask(_ command: Command, role: Role = .owner) -> Response {
            run(.request(command, role: role)) ?? .failure(.internal, "parked")
        }

        /// Time passes to the machine's next wake, and the timer fires there.
        func passToWake() {
            guard let wake = clock.daemon.outlets.wakes.last else { return }
            run(.tick, at: max(Double(wake), clock.wall.now().timeIntervalSince1970))
        }

        func waitFor(_ instant: Int) {
            while clock.wall.now().timeIntervalSince1970 < Double(instant) { passToWake() }
        }
    }

    func spec(_ time: String, days: String, label: String, challenge: Challenge? = nil) -> AlarmSpec {
        var spec = AlarmSpec()
        spec.time = try? LocalTime.parse(time)
        spec.days = try? DaySet.parse(days)
        spec.label = label
        spec.challenge = challenge
        return spec
    }

    @Test func aRecordedHouseholdDayReplaysIntoTheSameActions() throws {
        let start = instant("2026-11-23 06:00:00")
        let first = try Clock(now: start, problemSeed: 7)
        let day = Household(first)
        // Evening before: the alarms, a rule, an override, a reminder, a tag.
        #expect(day.ask(.tagAdd(label: "bath", uid: "04A1B2C3D4E5F6", timeoutSeconds: 30)).ok)
        #expect(day.ask(.alarmAdd(spec: spec("6:45", days: "mon-fri", label: "work"))).ok)
        #expect(day.ask(.alarmAdd(spec: spec("7:00", days: "daily", label: "bath", challenge: .nfc))).ok)
        #expect(
            day.ask(.ruleAdd(alarmID: 1, days: try DaySet.parse("wed"), change: .at(LocalTime(hour: 7, minute: 15)!)))
                .ok)
        #expect(day.ask(.overrideAdd(alarmID: nil, date: "2026-11-25", change: .off)).ok)
        var reminder = ReminderSpec()
        reminder.text = "check-in"
        reminder.days = .daily
        reminder.time = LocalTime(hour: 16, minute: 0)
        #expect(day.ask(.reminderAdd(spec: reminder)).ok)
        // 06:45: work rings; a snooze; it rings again; a wrong answer, then the right one.
        day.passToWake()
        #expect(day.ask(.snooze).ok)
        day.passToWake()
        let problem = try #require(day.ask(.problem).payloadProblem)
        _ = day.ask(.answer(value: solve(problem) + 1))
        let again = try #require(day.ask(.problem).payloadProblem)
        #expect(day.ask(.answer(value: solve(again))).ok)
        // 07:00: only the tag stops the bath alarm; math is refused.
        day.waitFor(instant("2026-11-23 07:00:00"))
        #expect(day.ask(.problem).error != nil)
        day.run(.tap(uid: "04A1B2C3D4E5F6"))
        // The day goes on: a child's page asks for the status, the chime at 16:00, a pause.
        _ = day.ask(.status, role: .none)
        day.waitFor(instant("2026-11-23 16:00:00"))
        #expect(day.ask(.pause(until: "2026-11-26")).ok)
        day.waitFor(instant("2026-11-24 08:00:00"))

        // The journal as a file, read back.
        let file = first.folder.appendingPathComponent("day.jsonl")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = try day.journal.map { String(decoding: try encoder.encode($0), as: UTF8.self) }.joined(
            separator: "\n")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
        #expect(lines == day.journal)

        let second = try Clock(now: start, problemSeed: 7)
        for line in lines { Self.apply(line, to: second) }

        let decided = first.daemon.outlets.decisions
        #expect(decided.count > 40, "a real day: \(decided.count) actions")
        #expect(decided.contains { if case .play = $0 { true } else { false } })
        #expect(decided.contains { if case .chime = $0 { true } else { false } })
        let replayed = second.daemon.outlets.decisions
        let differs = (0..<min(decided.count, replayed.count)).first { decided[$0] != replayed[$0] }
        #expect(
            replayed.count == decided.count && differs == nil,
            "\(replayed.count) actions replayed for \(decided.count); first difference at \(differs.map(String.init) ?? "the end"): \(differs.map { "\(replayed[$0])" } ?? "")"
        )
        #expect(second.history.map(\.state) == first.history.map(\.state))
        #expect(second.request(.history(days: 2)).history == first.request(.history(days: 2)).history)
        let shown = first.request(.history(days: 2)).history ?? []
        #expect(shown.map(\.dismissedBy) == [.math, .tag], "\(shown)")
        #expect(shown.first?.wrongAnswers == 1 && shown.first?.snoozes == 1)
    }
}
