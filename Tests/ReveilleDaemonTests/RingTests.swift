import Foundation
import ReveilleProtocol
import Testing

/// Ring sessions end to end (README, "How the schedule decides" and "When an alarm rings"), with the real daemon and CLI in real time:
/// one-shots a few seconds ahead, and the daemon's clock seam for jumps and DST nights.
@Suite struct RingTests {
    @Test func aOneShotFiresSnoozesToTheLimitAndMathDismissesIt() throws {
        let daemon = try DaemonHarness()
        #expect(try daemon.cli("alarm", "add", "--in", "2s", "--label", "nap", "--max-snoozes", "1").status == 0)
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
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let refused = try daemon.cli("snooze")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "reveille: no snoozes left (1 of 1 used): to stop the alarm, answer a math problem with 'reveille dismiss'\n"
        )

        let early = try daemon.cli("dismiss", "--answer", "1")
        #expect(early.status == 1)
        #expect(early.stderr == "reveille: no problem was asked yet: run 'reveille dismiss' to get one\n")
        _ = try daemon.request(.problem)
        let wrong = try daemon.cli("dismiss", "--answer", "1")  // no problem has so small an answer
        #expect(wrong.status == 1)
        #expect(wrong.stdout.hasPrefix("wrong answer; a new problem: "))
        let dismissed = try daemon.dismissByMath()
        #expect(dismissed.status == 0)
        #expect(dismissed.stdout == "dismissed alarm #1 nap. Good morning.\n")
        #expect(try daemon.session() == nil)
        let nothing = try daemon.cli("snooze")
        #expect(nothing.status == 1 && nothing.stderr == "reveille: nothing is ringing\n")

        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.count == 1)
        #expect(history[0].state == .dismissed && history[0].dismissedBy == .math)
        #expect(history[0].snoozes == 1 && history[0].wrongAnswers == 1)
        let stats = try daemon.cli("stats").stdout
        #expect(
            stats.hasPrefix("last 30 days: 1 rang, 1 dismissed, 0 stopped unanswered, 0 missed\naverage snoozes: 1.0\n")
        )
    }

    @Test func theInteractiveDismissReadsAnswersFromTheTerminal() throws {
        let daemon = try DaemonHarness()
        _ = try daemon.cli("alarm", "add", "--in", "1s")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
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
                Alarm #1 is ringing. Solve to stop it:
                  \(problem) = That is not a whole number; try again.
                  \(problem) = dismissed alarm #1. Good morning.

                """)
    }

    @Test func aKilledDaemonRingsAgainAtOnceWithItsSnoozeCount() throws {
        let daemon = try DaemonHarness()
        _ = try daemon.cli("alarm", "add", "--in", "1s", "--max-snoozes", "3")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        _ = try daemon.cli("snooze")
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })

        daemon.crash()
        try daemon.start()
        let session = try #require(try daemon.session())
        #expect(session.state == .ringing)
        #expect(session.snoozeCount == 1)
        #expect(try daemon.cli("status").stdout.contains("2 of 3 snoozes left"))
        #expect(daemon.logText().contains("was ringing; ringing again"))

        // A snoozed session keeps its deadline across a crash too.
        let snoozed = try daemon.cli("snooze").stdout
        daemon.crash()
        try daemon.start()
        let after = try #require(try daemon.session())
        #expect(after.state == .snoozed && after.snoozeCount == 2)
        #expect(snoozed.contains("until \(after.snoozedUntil ?? "?")"))
    }

    @Test func aThreeHourJumpRingsOnlyWhatIsWithinGrace() throws {
        // Saturday 05:00 in Berlin; alarms at 05:30, 06:00 and 07:50; the clock jumps to 08:00.
        let daemon = try DaemonHarness(now: instant("2026-11-21 05:00:00"))
        for time in ["5:30", "6:00", "7:50"] { _ = try daemon.cli("alarm", "add", time, "--days", "daily") }
        try daemon.setNow(instant("2026-11-21 08:00:00"))
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let session = try #require(try daemon.session())
        #expect(session.alarmID == 3 && session.scheduledTime == "07:50")
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.map(\.state) == [.missed, .missed, .ringing])
        #expect(history.map(\.alarmID) == [1, 2, 3])
        // 3 hours less the seconds the test took to get here (a minute less on a busy machine).
        let log = daemon.logText()
        #expect(log.contains("the clock jumped by +3h 0m") || log.contains("the clock jumped by +2h 59m"))
        #expect(
            try daemon.cli("history").stdout.contains(
                "2026-11-21 05:30  #1     -         0        0      missed (not rung)"))
    }

    @Test func aClockBehindTheLastRunRingsNothingUntilTimeSyncThenOnlyWhatIsInGrace() throws {
        // A Raspberry Pi has no real-time clock: after a reboot the time may start in the past.
        let daemon = try DaemonHarness(now: instant("2026-11-21 05:00:00"))
        _ = try daemon.cli("alarm", "add", "6:00", "--days", "daily")
        _ = try daemon.cli("alarm", "add", "8:55", "--days", "daily")
        daemon.stop()
        try daemon.setNow(instant("2025-01-01 12:00:00"))
        try daemon.start()
        usleep(500_000)
        #expect(try daemon.session() == nil)
        #expect(
            daemon.logText().contains("earlier than the last handled instant; nothing rings until it is synchronized"))
        #expect(try daemon.cli("status").stdout.contains("CLOCK BEHIND: the clock reads before 2026-11-21 05:0"))
        // Network time arrives: 09:00 on the day of the last run.
        try daemon.setNow(instant("2026-11-21 09:00:00"))
        #expect(try daemon.waitFor { try daemon.session()?.scheduledTime == "08:55" })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.map(\.scheduled) == ["2026-11-21 06:00", "2026-11-21 08:55"])
        #expect(history.map(\.state) == [.missed, .ringing])
    }

    @Test func springForwardRingsAtTheEndOfTheGap() throws {
        // New York, 2026-03-08: 02:00 EST becomes 03:00 EDT. An alarm at 02:30 rings at 03:00 EDT.
        let daemon = try DaemonHarness(
            zone: "America/New_York", now: instant("2026-03-08 01:59:57", zone: "America/New_York"))
        _ = try daemon.cli("alarm", "add", "2:30", "--days", "daily")
        #expect(
            try daemon.cli("next", "--days", "1").stdout.contains(
                "03:00  #1     base        02:30 does not exist that day"))
        #expect(try daemon.waitFor(8) { try daemon.session()?.state == .ringing })
        #expect(try daemon.session()?.scheduledTime == "03:00")
    }

    @Test func fallBackRingsOnceAtTheFirst0130() throws {
        // New York, 2026-11-01: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST).
        let daemon = try DaemonHarness(zone: "America/New_York", now: utc("2026-11-01T05:29:58Z"))
        _ = try daemon.cli("alarm", "add", "1:30", "--days", "daily")
        #expect(try daemon.waitFor(8) { try daemon.session()?.state == .ringing })
        #expect(try daemon.dismissByMath().status == 0)
        try daemon.setNow(utc("2026-11-01T06:29:58Z"))
        usleep(3_500_000)
        #expect(try daemon.session() == nil)
        #expect(try daemon.request(.history(days: 1)).history?.count == 1)
    }

    @Test func aSecondAlarmDueDuringASnoozeWakesThatSessionOnce() throws {
        let daemon = try DaemonHarness()
        _ = try daemon.cli("alarm", "add", "--in", "1s", "--label", "first")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        _ = try daemon.cli("snooze")
        _ = try daemon.cli("alarm", "add", "--in", "2s", "--label", "second")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let session = try #require(try daemon.session())
        #expect(session.label == "first" && session.snoozeCount == 1)
        #expect(daemon.waitFor(2) { daemon.logText().components(separatedBy: "sound: first frame").count - 1 == 2 })
        #expect(daemon.logText().contains("alarm #2 second is due while #1 first is snoozed; it rings as that session"))
        // The second one-shot has had its ring: it is off.
        #expect(try daemon.cli("alarm", "list").stdout.contains("2   second  "))
        #expect(try daemon.request(.alarmList).alarms?.map(\.enabled) == [false, false])
    }

    @Test func anNFCAlarmWithNoReaderOffersMathAndSaysSo() throws {
        let daemon = try DaemonHarness()
        _ = try daemon.cli("alarm", "add", "--in", "1s", "--challenge", "nfc", "--label", "wall")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let session = try #require(try daemon.session())
        #expect(session.challenge == .math && session.fellBackToMath)
        #expect(
            try daemon.cli("status").stdout.contains(
                "to stop it: answer a math problem with 'reveille dismiss' (no NFC reader was working)\n"))
        #expect(
            daemon.logText().contains(
                "alarm #1 wall wants an NFC tag but the reader is none configured (alarms are dismissed by math); offering math instead"
            ))
        #expect(try daemon.dismissByMath().status == 0)
    }

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

    @Test func anUnansweredAlarmStopsAfterTheLongestRing() throws {
        let daemon = try DaemonHarness(arguments: ["--max-ring-minutes", "1"])
        _ = try daemon.cli("alarm", "add", "--in", "1s")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 61)
        #expect(try daemon.waitFor { try daemon.session() == nil })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.map(\.state) == [.autoStopped])
        #expect(daemon.logText().contains("rang 1 min unanswered; stopped (unattended)"))
    }

    @Test func hooksRunForEachEventWithoutHoldingTheRing() throws {
        let daemon = try DaemonHarness()
        let hooks = daemon.root.appendingPathComponent("etc/reveille/hooks.d")
        try FileManager.default.createDirectory(at: hooks, withIntermediateDirectories: true)
        let events = daemon.root.appendingPathComponent("events.txt")
        let record = hooks.appendingPathComponent("10-record")
        try
            "#!/bin/sh\necho \"$REVEILLE_EVENT $REVEILLE_ALARM_ID $REVEILLE_ALARM_LABEL\" >> \(events.path)\necho recorded\n"
            .write(to: record, atomically: true, encoding: .utf8)
        let slow = hooks.appendingPathComponent("20-slow")
        try "#!/bin/sh\nsleep 600\n".write(to: slow, atomically: true, encoding: .utf8)
        chmod(record.path, 0o755)
        chmod(slow.path, 0o755)

        _ = try daemon.cli("alarm", "add", "--in", "1s", "--label", "gym")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        _ = try daemon.cli("snooze")
        #expect(try daemon.dismissByMath().status == 0)
        #expect(
            try daemon.waitFor {
                (try? String(contentsOf: events, encoding: .utf8)) == "fire 1 gym\nsnooze 1 gym\ndismiss 1 gym\n"
            })
        #expect(daemon.logText().contains("10-record (fire) exited 0: recorded"))
    }
}

/// Seconds since the epoch of an ISO 8601 UTC instant.
func utc(_ text: String) -> Int {
    Int(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970)
}
