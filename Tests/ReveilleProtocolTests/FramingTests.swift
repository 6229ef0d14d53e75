import Foundation
import ReveilleCore
import Testing

@testable import ReveilleProtocol

@Suite struct FramingTests {
    @Test func splitsLinesAcrossChunksAndDropsCarriageReturns() throws {
        var buffer = LineBuffer(limit: 100)
        buffer.append(Array("{\"a\":1}\r\n{\"b\"".utf8))
        #expect(try buffer.nextLine() == Array("{\"a\":1}".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array(":2}\n".utf8))
        #expect(try buffer.nextLine() == Array("{\"b\":2}".utf8))
        #expect(buffer.pendingCount == 0)
    }

    @Test func refusesALineLongerThanTheLimitBeforeItEnds() throws {
        var buffer = LineBuffer(limit: 10)
        buffer.append([UInt8](repeating: 0x41, count: 11))
        #expect(throws: LineBuffer.TooLarge.self) { try buffer.nextLine() }
        var exact = LineBuffer(limit: 10)
        exact.append([UInt8](repeating: 0x41, count: 10) + [0x0A])
        #expect(try exact.nextLine()?.count == 10)
    }

    @Test func encodesOneLineWithTheVersion() throws {
        let bytes = Framing.encode(Request(.next(days: 3)))
        #expect(bytes.last == 0x0A)
        #expect(bytes.filter { $0 == 0x0A }.count == 1)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"op":{"next":{"days":3}},"v":1}"# + "\n")
    }

    @Test func requestsRoundTrip() throws {
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("06:45")
        spec.days = .weekdays
        spec.label = "work"
        let commands: [Command] = [
            .status, .alarmAdd(spec: spec),
            .ruleAdd(alarmID: nil, days: .weekends, change: .at(try LocalTime.parse("9:00"))),
            .overrideAdd(alarmID: 2, date: "tomorrow", change: .off), .pause(until: nil), .next(days: 365),
        ]
        for command in commands {
            let line = Framing.encode(Request(command)).dropLast()
            #expect(try JSONDecoder().decode(Request.self, from: Data(line)) == Request(command))
        }
    }

    @Test func badValuesFailToDecodeWithTheCoreMessage() {
        let line = #"{"v":1,"op":{"alarmAdd":{"spec":{"time":"25:00"}}}}"#
        do {
            _ = try JSONDecoder().decode(Request.self, from: Data(line.utf8))
            Issue.record("25:00 decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription == "time \"25:00\": hour must be 0-23")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func rolesAreOrderedAndNeededRightsAreRight() {
        #expect(Role.none < .user && Role.user < .admin && Role.admin < .owner)
        #expect(Command.status.requiredRole == .user)
        #expect(Command.next(days: 1).requiredRole == .user)
        #expect(Command.alarmAdd(spec: AlarmSpec()).requiredRole == .admin)
        #expect(Command.pause(until: nil).requiredRole == .admin)
    }

    @Test func pathsFollowTheRoot() {
        let system = Paths.resolve(root: nil, environment: [:])
        #expect(system.socket == "/run/reveille/control.sock")
        #expect(system.database == "/var/lib/reveille/state.sqlite")
        let dev = Paths.resolve(root: nil, environment: ["REVEILLE_ROOT": "/home/me/.reveille/"])
        #expect(dev.socket == "/home/me/.reveille/run/reveille/control.sock")
        #expect(Paths.resolve(root: "/x", environment: ["REVEILLE_ROOT": "/y"]).root == "/x")
    }
}
