import Foundation
import ReveilleProtocol
import Testing

@testable import ReveilleDaemon

/// Corpus-driven fuzzing of the two parsers that take strangers' bytes: the control protocol's
/// decoder (in process, what every connection's line goes through) and the calendar reader
/// (`reveille-calendar expand`, as the daemon runs it, with its CPU bound). `make test` runs a
/// bounded number of cases; `make fuzz` runs many more (`REVEILLE_FUZZ_CASES`), from a seed that
/// it prints so that a failure can be replayed (`REVEILLE_FUZZ_SEED`).
@Suite struct FuzzTests {
    static var cases: Int { Int(ProcessInfo.processInfo.environment["REVEILLE_FUZZ_CASES"] ?? "") ?? 0 }
    static var seed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["REVEILLE_FUZZ_SEED"] ?? "") ?? 0x5EED_CAFE
    }

    /// SplitMix64: the same cases for the same seed, on any machine.
    struct Mixer: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One mutation of `seed`: bytes changed, inserted, deleted, a span repeated, or spliced with another seed.
    static func mutate(_ seed: [UInt8], with others: [[UInt8]], alphabet: [UInt8], _ random: inout Mixer) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[at] = alphabet.randomElement(using: &random)!
            case 1: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
            case 2: bytes.remove(at: at)
            case 3:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[at..<end], at: at)
            case 4:
                let other = others.randomElement(using: &random)!
                let from = Int.random(in: 0..<other.count, using: &random)
                bytes = Array(bytes[..<at]) + other[from...]
            default: bytes[at] = UInt8.random(in: 0...255, using: &random)
            }
        }
        return bytes
    }

    static let requests: [[UInt8]] = [
        #"{"v":1,"op":{"status":{}}}"#, #"{"v":1,"op":{"next":{"days":30}}}"#,
        #"{"v":1,"op":{"alarmAdd":{"spec":{"time":"06:45","days":"mon-fri","label":"x","volume":50}}}}"#,
        #"{"v":1,"op":{"ruleAdd":{"days":"sat","change":"09:00","alarm":1}}}"#,
        #"{"v":1,"op":{"overrideAdd":{"date":"2026-12-24","change":"off"}}}"#,
        #"{"v":1,"op":{"soundTest":{"file":"/x.wav","device":"hw:0","seconds":1}}}"#,
        #"{"v":1,"op":{"answer":{"value":42}},"cap":"user","device":"ab"}"#,
        #"{"v":1,"op":{"reminderAdd":{"spec":{"text":"bins","time":"19:00","days":"tue","then":[]}}}}"#,
        #"{"v":1,"op":{"calendarAdd":{"name":"s","source":"/a.ics","purpose":"holidays"}}}"#,
    ].map { Array($0.utf8) }

    @Test func theControlProtocolsDecoderAnswersEveryMutation() throws {
        let count = Self.cases > 0 ? Self.cases : 20_000
        var random = Mixer(state: Self.seed)
        let alphabet = Array(#"{}[]":,.0123456789-+eE truefalsnul\u"#.utf8) + [0x00, 0xFF, 0x0D]
        var decoded = 0
        for seed in Self.requests {
            if case .failure(let error) = Connection.decode(seed) {
                Issue.record("a seed does not decode: \(String(decoding: seed, as: UTF8.self)): \(error.response)")
            }
        }
        for _ in 0..<count {
            let line = Self.mutate(
                Self.requests.randomElement(using: &random)!, with: Self.requests, alphabet: alphabet, &random)
            switch Connection.decode(line) {
            case .success: decoded += 1
            case .failure(let error):
                // Every refusal is a reply a person can read, and it encodes to one line.
                let message = error.response.error?.message ?? ""
                #expect(!message.isEmpty)
                let encoded = Framing.encode(error.response)
                #expect(encoded.last == 0x0A && !encoded.dropLast().contains(0x0A))
            }
        }
        #expect(decoded > 0, "no mutation decoded: the mutations are too rough to reach the decoder's depths")
    }

    static let calendars: [[UInt8]] = [
        CalendarTests.thanksgiving,
        CalendarTests.ics(
            """
            BEGIN:VTIMEZONE
            TZID:W. Europe Standard Time
            BEGIN:STANDARD
            DTSTART:16010101T030000
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:weekly
            SUMMARY:Swimming
            DTSTART;TZID=W. Europe Standard Time:20261103T170000
            DTEND;TZID=W. Europe Standard Time:20261103T180000
            RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=TU
            EXDATE;TZID=W. Europe Standard Time:20261110T170000
            BEGIN:VALARM
            TRIGGER:-PT15M
            ACTION:DISPLAY
            END:VALARM
            END:VEVENT
            BEGIN:VEVENT
            UID:weekly
            RECURRENCE-ID;TZID=W. Europe Standard Time:20261117T170000
            DTSTART;TZID=W. Europe Standard Time:20261118T170000
            SUMMARY:Swimming (moved)
            END:VEVENT

            """),
    ].map { Array($0.utf8) }

    /// The calendar reader on mutated calendars: it answers (occurrences or an error), or stops at
    /// its CPU bound; it never dies of anything else (a crash in libical would show here).
    @Test func theCalendarReaderAnswersEveryMutationOrStopsAtItsBound() throws {
        let count = Self.cases > 0 ? max(1, Self.cases / 100) : 60
        var random = Mixer(state: Self.seed)
        let alphabet = Array("BEGIN:VEVENTDSAR;=-,0123456789TZ\r\nRULE:FREQ=DAILYSECONDLYCOUNTBYMONTH".utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-fuzz-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = Binaries.directory.appendingPathComponent("reveille-calendar")
        var answered = 0
        for index in 0..<count {
            let text = Self.mutate(
                Self.calendars.randomElement(using: &random)!, with: Self.calendars, alphabet: alphabet, &random)
            let file = folder.appendingPathComponent("\(index).ics")
            try Data(text).write(to: file)
            let process = Process()
            process.executableURL = tool
            process.arguments = [
                "expand", file.path, "--from", "2026-11-01", "--through", "2027-01-31", "--zone", "Europe/Berlin",
                "--cpu-seconds", "2",
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal {
                #expect(
                    process.terminationStatus == SIGXCPU || process.terminationStatus == SIGKILL,
                    "reveille-calendar died of signal \(process.terminationStatus) on \(file.path): \(String(decoding: text, as: UTF8.self).debugDescription)"
                )
                continue
            }
            let reply = try? JSONDecoder().decode(CalendarExpansion.self, from: data)
            #expect(reply != nil, "no answer for \(String(decoding: text, as: UTF8.self).debugDescription)")
            if reply != nil { answered += 1 }
        }
        #expect(answered > count / 2)
    }
}
