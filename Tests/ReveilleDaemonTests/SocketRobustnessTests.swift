import Foundation
import ReveilleProtocol
import Testing

/// Garbage on the control socket gets an error reply or a disconnect, never takes the daemon down (docs/guide/rights.md, "Who may do what").
/// None of it is a request that changes anything, so it all goes to the shared daemon, which other
/// tests use meanwhile.
@Suite struct SocketRobustnessTests {
    /// Sends one raw line and decodes the reply.
    func reply(to line: String, on daemon: DaemonHarness) throws -> ErrorReply? {
        let client = try daemon.connect()
        try client.sendRaw(Array(line.utf8) + [0x0A])
        let answer = try #require(try client.readLine())
        return try JSONDecoder().decode(Response.self, from: Data(answer)).error
    }

    @Test(arguments: [
        (
            "not json", "bad-request",
            #"malformed request: not a JSON object; send one JSON request per line, like {"v":1,"op":{"status":{}}}"#
        ),
        (
            #"{"op":{"status":{}}}"#, "bad-request",
            #"malformed request: missing protocol version "v" (this daemon speaks 1)"#
        ),
        (
            #"{"v":9,"op":{"status":{}}}"#, "unsupported-version",
            "protocol version 9 is not supported; this reveilled speaks version 1"
        ),
        (#"{"v":1}"#, "bad-request", #"malformed request: missing field "op""#),
        (
            #"{"v":1,"op":{"selfDestruct":{}}}"#, "bad-request",
            #"malformed request: unknown operation "selfDestruct"; update reveille and reveilled together"#
        ),
        (
            #"{"v":1,"op":{"next":{"days":"many"}}}"#, "bad-request",
            #"malformed request: field "op.next.days" has the wrong type"#
        ),
        (#"{"v":1,"op":{"alarmAdd":{"spec":{"time":"25:00"}}}}"#, "invalid", #"time "25:00": hour must be 0-23"#),
        (
            #"{"v":1,"op":{"alarmAdd":{"spec":{"time":"07:00","days":"funday"}}}}"#, "invalid",
            #"days "funday": unknown day "funday"; use day names (mon,tue,wed,thu,fri,sat,sun), ranges like mon-fri, or daily, weekdays, weekends"#
        ),
        (#"{"v":1,"op":{"alarmRemove":{"id":7}}}"#, "not-found", "no alarm #7; 'reveille alarm list' shows the ids"),
        (#"{"v":1,"op":{"next":{"days":0}}}"#, "invalid", "--days 0: must be 1-3660"),
        (
            #"[1,2,3]"#, "bad-request",
            #"malformed request: not a JSON object; send one JSON request per line, like {"v":1,"op":{"status":{}}}"#
        ),
    ])
    func malformedRequestsGetAnErrorReply(line: String, code: String, message: String) throws {
        let daemon = SharedDaemon.unchanged
        let error = try #require(try reply(to: line, on: daemon))
        #expect(error.code.rawValue == code)
        #expect(error.message == message)
        #expect(daemon.answersStatus())
    }

    @Test func aTenMegabyteLineIsRefusedAndTheDaemonCarriesOn() throws {
        let daemon = SharedDaemon.unchanged
        let client = try daemon.connect()
        var refusal: ErrorReply?
        do {
            try client.sendRaw([UInt8](repeating: 0x7B, count: 10 * 1024 * 1024) + [0x0A])
            if let line = try client.readLine() {
                refusal = try JSONDecoder().decode(Response.self, from: Data(line)).error
            }
        } catch ControlClient.Failure.io {
            // The daemon may cut the connection while we still write: that is the other allowed answer.
        }
        if let refusal {
            #expect(refusal.code == .tooLarge)
            #expect(refusal.message == "request too large: a request is one line of at most 65536 bytes")
        }
        #expect(daemon.answersStatus())
    }

    @Test func binaryGarbageAndHalfLinesDoNotHurt() throws {
        let daemon = SharedDaemon.unchanged
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let client = try daemon.connect()
            let bytes = (0..<Int.random(in: 1...4096, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            try? client.sendRaw(bytes)  // may end mid-line: the connection just closes
        }
        #expect(daemon.answersStatus())
    }

    /// A few thousand random messages: mutated valid requests, random JSON, random bytes. Each gets
    /// exactly one error or ok reply (or a disconnect), and `status` works at the end.
    @Test func fuzzedMessagesNeverTakeTheDaemonDown() throws {
        let daemon = SharedDaemon.unchanged
        var generator = SystemRandomNumberGenerator()
        let seeds = [
            #"{"v":1,"op":{"status":{}}}"#, #"{"v":1,"op":{"next":{"days":30}}}"#,
            #"{"v":1,"op":{"alarmAdd":{"spec":{"time":"06:45","days":"mon-fri","label":"x"}}}}"#,
            #"{"v":1,"op":{"ruleAdd":{"days":"sat","change":"09:00"}}}"#,
            #"{"v":1,"op":{"overrideAdd":{"date":"tomorrow","change":"off"}}}"#,
            #"{"v":1,"op":{"alarmEdit":{"id":1,"spec":{"volume":5}}}}"#,
        ]
        let alphabet = Array(#"{}[]":,0123456789-aeiouvxyz\ "#.utf8)
        var client = try daemon.connect()
        var replies = 0
        for round in 0..<3000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:  // a valid request with a few bytes changed
                bytes = Array(seeds.randomElement(using: &generator)!.utf8)
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = alphabet.randomElement(
                        using: &generator)!
                }
            case 1:  // JSON-ish soup
                bytes = (0..<Int.random(in: 1...200, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                }
            default:  // raw bytes
                bytes = (0..<Int.random(in: 1...300, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            bytes.removeAll { $0 == 0x0A }
            bytes.insert(0x78, at: 0)  // never a blank line: every line gets one reply
            do {
                try client.sendRaw(bytes + [0x0A])
                let line = try #require(try client.readLine())
                let response = try JSONDecoder().decode(Response.self, from: Data(line))
                #expect(response.v == 1)
                replies += 1
            } catch is ControlClient.Failure {
                client = try daemon.connect()
            }
        }
        #expect(replies > 2900)
        #expect(daemon.answersStatus())
    }

    @Test func manyClientsAtOnceAreAllServed() async throws {
        let daemon = SharedDaemon.unchanged
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { daemon.answersStatus() } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 20)
    }
}

extension DaemonHarness: @unchecked Sendable {}
