import CTestSupport
import Foundation
import ReveilleProtocol
import Testing

/// Ring sessions end to end (docs/guide/schedule.md, "How the schedule decides" and "When an alarm rings"), with
/// the real daemon and CLI in real time: what needs the real processes (the CLI's words, a
/// terminal, kill -9, inotify on the zone link, hooks). Clock jumps, DST nights and the rest of
/// what the machine decides run in-process on virtual time (InProcessRingTests).
@Suite struct RingTests {
    /// Monday 2026-11-23, 23:00 in Berlin.
    static let night = 1_795_471_200

    /// `reveille status --watch` beside it prints each transition as it happens, in order, and
    /// the hooks run for each event without holding the ring.
    @Test func aOneShotFiresSnoozesToTheLimitAndMathDismissesItAsAWatcherSees() throws {
        // Saturday 10:00 in Berlin, whatever the hour here: the ring, its snooze and `history`'s
        // day stay one day even when the tests run near midnight.
        let daemon = try DaemonHarness(now: CLITourTests.saturdayMorning)
        let output = daemon.root.appendingPathComponent("watch.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let watcher = Process()
        watcher.executableURL = Binaries.cli
        watcher.arguments = ["status", "--watch"]
        watcher.environment = ProcessInfo.processInfo.environment.merging(["REVEILLE_ROOT": daemon.root.path]) { $1 }
        watcher.standardOutput = try FileHandle(forWritingTo: output)
        try watcher.run()
        defer {
            // SIGKILL: Foundation's Process starts children with SIGTERM blocked.
            kill(watcher.processIdentifier, SIGKILL)
            watcher.waitUntilExit()
        }
        func watched() -> String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
        #expect(daemon.waitFor(5) { watched().contains("next ring: none") })
        // Hooks run for each event, and a slow one holds nothing.
        let hooks = daemon.root.appendingPathComponent("etc/reveille/hooks.d")
        try FileManager.default.createDirectory(at: hooks, withIntermediateDirectories: true)
        let hookLog = daemon.root.appendingPathComponent("events.txt")
        let record = hooks.appendingPathComponent("10-record")
        try
            "#!/bin/sh\necho \"$REVEILLE_EVENT $REVEILLE_ALARM_ID $REVEILLE_ALARM_LABEL\" >> \(hookLog.path)\necho recorded\n"
            .write(to: record, atomically: true, encoding: .utf8)
        let slow = hooks.appendingPathComponent("20-slow")
        try "#!/bin/sh\nsleep 600\n".write(to: slow, atomically: true, encoding: .utf8)
        chmod(record.path, 0o755)
        chmod(slow.path, 0o755)
        func hooked() -> [String] {
            ((try? String(contentsOf: hookLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        #expect(try daemon.cli("alarm", "add", "--in", "2s", "--label", "nap", "--max-snoozes", "1").status == 0)
        #expect(daemon.waitFor(5) { watched().contains(" RINGING: alarm #1 nap") })
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let status = try daemon.cli("status").stdout
        #expect(status.hasPrefix("RINGING: alarm #1 nap (due "))
        #expect(
            status.contains(
                "1 of 1 snoozes left: 'reveille snooze'\nto stop it: answer a math problem with 'reveille dismiss'\n"))
        // A one-shot that has rung turns itself off.
        #expect(try daemon.cli("alarm", "list", "--json").stdout.contains(#""enabled" : false"#))

        let snooze = try daemon.cli("snooze")
        #expect(snooze.status == 0)
        #expect(snooze.stdout.hasPrefix("snoozed alarm #1 nap until "))
        #expect(snooze.stdout.hasSuffix(" (0 of 1 snoozes left)\n"))
        #expect(try daemon.session()?.state == .snoozed)

        // The snooze ends (9 minutes later, by the daemon's clock) and it rings again.
        try daemon.setNow(try #require(try daemon.request(.status).status?.nowInstant) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let refused = try daemon.cli("snooze")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "reveille: no snoozes left (1 of 1 used): to stop the alarm, answer a math problem with 'reveille dismiss'\n"
        )

        let early = try daemon.cli("dismiss", "--answer", "1")
        #expect(early.status == 1)
        #expect(
            early.stderr
                == "reveille: no problem was asked yet: run 'reveille dismiss' to get one ('reveille dismiss --problem' in a script)\n"
        )
        #expect(try daemon.session()?.problem == nil)
        // A script asks for the problem alone, and finds it in `status --json` too.
        let asked = try daemon.cli("dismiss", "--problem")
        #expect(asked.status == 0)
        let problem = asked.stdout.trimmingCharacters(in: .newlines)
        #expect(problem.wholeMatch(of: #/[0-9 +×]+/#) != nil, "\(asked)")
        #expect(try daemon.cli("status", "--json").stdout.contains(#""problem" : "\#(problem)""#))
        let wrong = try daemon.cli("dismiss", "--answer", "1")  // no problem has so small an answer
        #expect(wrong.status == 1)
        #expect(wrong.stdout.hasPrefix("wrong answer; a new problem: "))
        #expect(try daemon.session()?.problem != problem, "a wrong answer gets a new problem")
        let dismissed = try daemon.cli(
            "dismiss", "--answer",
            String(solve(try daemon.cli("dismiss", "--problem").stdout.trimmingCharacters(in: .newlines))))
        #expect(dismissed.status == 0)
        #expect(dismissed.stdout == "dismissed alarm #1 nap. Good morning.\n")
        #expect(try daemon.session() == nil)
        let nothing = try daemon.cli("snooze")
        #expect(nothing.status == 1 && nothing.stderr == "reveille: nothing is ringing\n")

        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.count == 1)
        let entry = try #require(history.first)
        #expect(entry.state == .dismissed && entry.dismissedBy == .math)
        #expect(entry.snoozes == 1 && entry.wrongAnswers == 1)
        let stats = try daemon.cli("stats").stdout
        #expect(
            stats.hasPrefix("last 30 days: 1 rang, 1 dismissed, 0 stopped unanswered, 0 missed\naverage snoozes: 1.0\n")
        )

        // What the hooks heard, each event once, in order; the slow hook held none of it.
        #expect(daemon.waitFor(5) { hooked().last == "dismiss 1 nap" }, "\(hooked())")
        #expect(Array(hooked().prefix(2)) == ["fire 1 nap", "snooze 1 nap"], "\(hooked())")
        #expect(daemon.logText().contains("10-record (fire) exited 0: recorded"))

        // What the watcher saw: stamped on the daemon's clock, in its zone (Berlin here, whatever
        // this machine's), each transition once, in order.
        #expect(daemon.waitFor(5) { watched().contains(" DISMISSED: alarm #1 nap by math") })
        let text = watched()
        let now = try #require(try daemon.request(.status).status?.now)
        let hour = String(now.dropFirst(11).prefix(3))
        #expect(text.split(separator: "\n").contains { $0.hasPrefix(hour) && $0.contains(" DISMISSED: ") }, "\(text)")
        // The lines after the status block, without their time stamps, in order.
        let events = text.split(separator: "\n").filter { $0.count > 9 && $0.dropFirst(2).hasPrefix(":") }
            .map { $0.dropFirst(9).prefix(while: { $0 != "(" && $0 != ";" }) }
            .map { $0.components(separatedBy: " until ")[0].trimmingCharacters(in: .whitespaces) }
        #expect(events.contains("the schedule changed"), "\(text)")  // the alarm added
        let transitions = events.filter { !$0.hasPrefix("next ring") && !$0.hasPrefix("the schedule changed") }
        // A wrong answer's new problem is the same ringing session again: one transition.
        let distinct = transitions.enumerated().filter { $0.offset == 0 || transitions[$0.offset - 1] != $0.element }
            .map(\.element)
        #expect(
            distinct == [
                "RINGING: alarm #1 nap", "SNOOZED: alarm #1 nap", "RINGING: alarm #1 nap",
                "DISMISSED: alarm #1 nap by math",
            ], "\(text)")
    }

    /// `reveille dismiss` asks on a terminal until the right answer, a word or a wrong number
    /// getting a new try, and end of input leaves the alarm ringing; its answers may come on a pipe.
    ///
    /// First, the night before a committed alarm: a refused change asks the alarm's problem itself on
    /// a terminal, then is made (`reveille pause` with a pseudo-terminal as its standard input).
    @Test func theInteractiveDismissAndChallengeReadAnswersFromATerminalOrAPipe() throws {
        let daemon = try DaemonHarness(now: Self.night)
        do {
            #expect(try daemon.cli("alarm", "add", "6:45", "--days", "daily", "--commit", "8h").status == 0)
            var name = [CChar](repeating: 0, count: 128)
            let master = RVT_open_pty(&name, name.count)
            #expect(master >= 0)
            let terminal = open(String(cString: name), O_RDWR | O_NOCTTY)
            #expect(terminal >= 0)
            defer { close(master) }
            let process = Process()
            process.executableURL = Binaries.cli
            process.arguments = ["pause"]
            process.environment = ["REVEILLE_ROOT": daemon.root.path, "PATH": "/usr/bin:/bin"]
            process.standardInput = FileHandle(fileDescriptor: terminal, closeOnDealloc: true)
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The problem the CLI shows is the alarm's, the same until answered.
            var problem: String?
            #expect(
                daemon.waitFor(5) {
                    problem = try? daemon.request(.unlock(alarmID: 1, answer: nil)).unlock?.problem
                    return problem != nil && daemon.logText().contains("pause refused")
                })
            // The terminal keeps the line until the CLI reads it: no need to wait for its prompt.
            let answer = Array("\(solve(try #require(problem)))\n".utf8)
            #expect(write(master, answer, answer.count) == answer.count)
            process.waitUntilExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(printed) \(complaint)")
            #expect(complaint.contains("is committed since 22:45"))
            #expect(printed.contains("To unlock alarm #1, solve:"))
            #expect(printed.contains("alarms are off until 'reveille resume'"), "\(printed)")
            #expect(try daemon.request(.status).status?.master == .off)
        }
        #expect(try daemon.cli("resume").status == 0)

        _ = try daemon.cli("alarm", "add", "--in", "1s")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let first = try #require(try daemon.request(.problem).problem)
        let session = try TerminalSession(Binaries.cli, ["dismiss"], environment: ["REVEILLE_ROOT": daemon.root.path])
        #expect(session.read(until: "\(first) = "))
        session.write("seven\n")
        #expect(session.read(until: "That is not a whole number; try again."))
        session.write("1\n")  // no problem has so small an answer
        #expect(session.read(until: "Wrong. Here is a new one:"))
        session.write("\u{04}")  // Ctrl-D: end of input
        #expect(session.wait() == 1)
        #expect(session.output.contains("reveille: no answer (end of input); the alarm was not dismissed"))
        #expect(try daemon.session()?.state == .ringing)

        let problem = try #require(try daemon.request(.problem).problem)
        let process = Process()
        process.executableURL = Binaries.cli
        process.arguments = ["dismiss"]
        process.environment = ["REVEILLE_ROOT": daemon.root.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("not a number\n\(solve(problem))\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(
            text == """
                Alarm #2 is ringing. Solve to stop it:
                  \(problem) = That is not a whole number; try again.
                  \(problem) = dismissed alarm #2. Good morning.

                """)
    }

    // A daemon killed mid-ring rings again at once with its snooze count, and a snoozed session
    // keeps its deadline: InProcessRingTests.aKilledDaemonRingsAgainAtOnceWithItsSnoozeCount (the
    // state's durability across a real kill -9: StateSurvivalTests, and power cuts on the VM bench).

    @Test func aChangeOfTheSystemTimeZoneIsFollowed() throws {
        // On the system clock, so that nothing polls: the daemon must hear of the change (inotify).
        let daemon = try DaemonHarness(zoneLink: "Europe/Berlin", systemClock: true)
        _ = try daemon.cli("alarm", "add", "11:00", "--days", "daily")
        let before = try #require(try daemon.request(.status).status)
        #expect(before.timeZone == "Europe/Berlin")
        try daemon.changeZoneLink(to: "Asia/Tokyo")
        #expect(try daemon.waitFor(3) { try daemon.request(.status).status?.timeZone == "Asia/Tokyo" })
        #expect(daemon.logText().contains("the time zone changed from Europe/Berlin to Asia/Tokyo (tzdata "))
        // 11:00 in Tokyo comes 8 hours before 11:00 in Berlin (in November), give or take a day.
        let after = try #require(try daemon.request(.status).status?.nextRing)
        #expect(after.time == "11:00")
        let shift = ((try #require(before.nextRing?.instant) - after.instant) % 86_400 + 86_400) % 86_400
        #expect(shift == 8 * 3600)
    }
}

/// Seconds since the epoch of an ISO 8601 UTC instant.
func utc(_ text: String) -> Int {
    Int(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970)
}
