import Foundation
import ReveilleProtocol
import Testing

/// A clock that was ahead and is put right (README, "When the clock was wrong"): the alarms ring
/// again at their times, what passed meanwhile is recorded as missed, and `status` says what it
/// waits for while it waits.
@Suite struct WrongClockTests {
    static let year = 365 * 86_400

    @Test func aClockSetAYearAheadThenBackWhileRunningRingsAgain() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-24 06:00:00"))
        #expect(try daemon.cli("alarm", "add", "06:30", "--days", "daily", "--label", "school").status == 0)
        try daemon.setNow(instant("2026-11-24 06:10:00") + Self.year)
        #expect(daemon.waitFor(5) { daemon.logText().contains("the clock jumped by +") })
        // Put right by time sync at 06:40: 06:30 passed while it was wrong, within the grace: it rings.
        try daemon.setNow(instant("2026-11-24 06:40:00"))
        #expect(try daemon.waitFor(5) { try daemon.session()?.state == .ringing }, "\(daemon.logText())")
        #expect(daemon.logText().contains("the clock is right again"))
        #expect(try !daemon.cli("status").stdout.contains("CLOCK BEHIND"))
        #expect(try daemon.dismissByMath().status == 0)
        let next = try daemon.cli("next", "--brief").stdout
        #expect(next.hasPrefix("Wed 06:30"), "\(next)")
    }

    @Test func startedOnAClockBehindItWaitsSayingSoUntilNetworkTimeIsThere() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-24 06:00:00") + Self.year)
        #expect(try daemon.cli("alarm", "add", "06:30", "--days", "daily").status == 0)
        daemon.stop()
        try daemon.setNow(instant("2026-11-24 06:20:00"))
        try daemon.start()
        let waiting = try daemon.cli("status").stdout
        #expect(waiting.contains("CLOCK BEHIND: the clock reads before 2027-11-24 06:00:"), "\(waiting)")
        #expect(waiting.contains("nothing rings until network time says the clock is right"))
        // Network time arrives (the test clock's flag file stands for the kernel's).
        FileManager.default.createFile(atPath: daemon.clockFile.path + ".synchronized", contents: nil)
        #expect(try daemon.waitFor(5) { try !daemon.cli("status").stdout.contains("CLOCK BEHIND") })
        try daemon.setNow(instant("2026-11-24 06:30:00"))
        #expect(try daemon.waitFor(5) { try daemon.session()?.state == .ringing }, "\(daemon.logText())")
    }
}

/// A day silenced by an override, then a crash after midnight (a power cut, a watchdog restart):
/// the catch-up still sees the override, so the silenced occurrence neither rings nor is missed.
@Suite struct SilencedDayCrashTests {
    @Test(arguments: ["2026-11-24 23:56:00", "2026-11-25 00:05:00", "2026-11-25 00:09:30"])
    func aSilencedDayStaysSilentAcrossAKillAfterMidnight(killAt: String) throws {
        let daemon = try DaemonHarness(now: instant("2026-11-24 22:00:00"))
        #expect(try daemon.cli("alarm", "add", "23:55", "--days", "daily").status == 0)
        #expect(try daemon.cli("override", "add", "2026-11-24", "--off").status == 0)
        try daemon.setNow(instant(killAt))
        usleep(300_000)
        daemon.crash()
        try daemon.start()
        usleep(500_000)
        #expect(try daemon.session() == nil, "the silenced 23:55 rang after a restart at \(killAt)")
        let history = try #require(try daemon.request(.history(days: 2)).history)
        #expect(history.isEmpty, "recorded: \(history)")
        #expect(!daemon.logText().contains("recorded as missed"))
        // The next day rings as usual.
        #expect(try daemon.cli("next", "--brief").stdout.hasPrefix("Wed 23:55"))
    }
}
