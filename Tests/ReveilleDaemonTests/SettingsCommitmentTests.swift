import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// reveille.toml and a committed ring (docs/guide/ringing.md, "What a commitment holds"): root's edit that would
/// weaken the ring (a shorter longest ring, the reader removed) waits until after it, and says
/// so; one that weakens nothing applies at once.
@Suite(.serialized) struct SettingsCommitmentTests {
    /// Monday 2026-11-23, 23:00 in Berlin.
    static let night = 1_795_471_200

    /// SIGHUP in the committed window: a file that does not load is refused; one that weakens the
    /// ring (a longest ring of 1 minute) waits for it, then applies; one that weakens nothing (a
    /// longer longest ring, a new default volume) applies at once.
    @Test func aBrokenReloadIsRefusedAWeakeningOneWaitsForTheRingAndOneThatWeakensNothingApplies() throws {
        let daemon = try DaemonHarness(now: Self.night)
        #expect(try daemon.cli("alarm", "add", "6:45", "--days", "daily", "--commit", "8h").status == 0)
        let file = daemon.root.appendingPathComponent("etc/reveille/reveille.toml")
        let good = try String(contentsOf: file, encoding: .utf8)
        let pid = daemon.process.processIdentifier

        try (good + "[audio]\nvolume = 150\n").write(to: file, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(
            try daemon.waitFor(3) {
                try daemon.cli("status").stdout.contains("REVEILLE.TOML REJECTED: \(file.path):")
            })
        #expect(daemon.logText().contains("received SIGHUP: "))
        #expect(try daemon.cli("doctor", "--no-tone").stdout.contains("FAIL  settings: \(file.path):"))

        try ("max_ring_minutes = 1\n" + good).write(to: file, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(try daemon.waitFor(5) { try daemon.request(.status).status?.settingsWaiting != nil })
        let waiting = try #require(try daemon.request(.status).status?.settingsWaiting)
        #expect(
            waiting.hasSuffix(
                "it stops an unanswered ring sooner (max_ring_minutes: 30m → 1m); alarm #1 is committed (--commit 8h 0m) to its ring at 2026-11-24 06:45: they apply after that ring"
            ), "\(waiting)")
        #expect(try daemon.request(.status).status?.settingsRejected == nil)
        #expect(try daemon.cli("status").stdout.contains("REVEILLE.TOML WAITS: the new reveille.toml waits (since "))
        #expect(!daemon.logText().contains("starting again in place"))
        // The ring comes and rings past a minute; dismissed, the file applies.
        try daemon.setNow(Self.night + 7 * 3600 + 45 * 60)
        #expect(try daemon.waitFor(5) { try daemon.session()?.state == .ringing })
        try daemon.advance(by: 120)
        #expect(try daemon.settle())
        #expect(try daemon.session()?.state == .ringing, "not stopped after 1 minute")
        let problem = try #require(try daemon.request(.problem).problem)
        #expect(try daemon.request(.answer(value: solve(problem))).ok)
        try daemon.advance(by: 2)
        #expect(daemon.waitFor(5) { daemon.logText().contains("applying the reveille.toml that waited") })
        #expect(daemon.waitFor(5) { daemon.answersStatus() })
        #expect(daemon.process.processIdentifier == pid)
        #expect(try daemon.request(.status).status?.settingsWaiting == nil)

        // One that weakens nothing: the daemon starts again in place (same pid) with it at once.
        try ("max_ring_minutes = 60\n" + good.replacingOccurrences(of: "[audio]\n", with: "[audio]\nvolume = 35\n"))
            .write(to: file, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(daemon.waitFor(5) { daemon.logText().components(separatedBy: "starting again in place").count == 3 })
        #expect(daemon.waitFor(5) { daemon.answersStatus() })
        #expect(try daemon.request(.status).status?.settingsWaiting == nil)
        #expect(daemon.process.processIdentifier == pid)
        var noon = AlarmSpec()
        noon.time = LocalTime(secondsOfDay: 12 * 3600)
        #expect(try daemon.request(.alarmAdd(spec: noon)).alarms?.first?.volume == 35, "the new default volume")
        // The CLI after a start again in place: the harness reaps the daemon itself (DaemonProcess).
        let started = Date()
        #expect(try daemon.cli("status").stdout.contains("alarms: on (2 of 2 enabled)"))
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
