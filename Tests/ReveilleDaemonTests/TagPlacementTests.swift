import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// A tag must be *placed* after the ring starts (issue 12): what a sleeper who wants to stay in bed
/// would try, through the real daemon, real libnfc and the emulated PN532.
@Suite struct TagPlacementTests {
    /// The registered tag, and an alarm that only it stops, ringing with the tag already on the reader.
    func ringingWithTheTagLyingThere() throws -> (DaemonHarness, PN532Emulator) {
        let daemon = try DaemonHarness(nfcReader: true)
        let emulator = try #require(daemon.emulator)
        #expect(try daemon.cli("tag", "add", "--label", "bathroom", "--uid", UIDText.bathroom).status == 0)
        emulator.present(uid: NFCTests.bathroom)  // left by the bed the night before
        let add = try daemon.cli("alarm", "add", "--in", "1s", "--label", "up", "--challenge", "nfc")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(3) { daemon.logText().contains("a tag is on the reader: lift it, then tap it") })
        return (daemon, emulator)
    }

    /// A hundred looks at the field with the tag lying there, at the ring's start and again when a
    /// snooze ends: two hundred chances to be fooled. Lifted and tapped, it dismisses. (The tap
    /// during a snooze is decided in-process: ControllerTests.)
    @Test func aTagLyingOnTheReaderStopsNothingAtTheRingNorWhenASnoozeEnds() throws {
        let (daemon, emulator) = try ringingWithTheTagLyingThere()
        #expect(emulator.awaitPolls(100))
        #expect(try daemon.session()?.state == .ringing)
        let status = try daemon.cli("status").stdout
        #expect(
            status.contains("to stop it: scan your tag on the reader\na tag is on the reader: lift it, then tap it\n"))
        #expect(try daemon.session()?.tagOnReader == true)

        #expect(try daemon.cli("snooze").status == 0)
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(emulator.awaitPolls(100))
        #expect(try daemon.session()?.state == .ringing)
        #expect(try daemon.session()?.tagOnReader == true)

        emulator.removeTag()
        #expect(try daemon.waitFor(3) { try daemon.session()?.tagOnReader == false })
        #expect(try daemon.session()?.state == .ringing)
        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.first?.dismissedBy == .tag && history.first?.snoozes == 1)
    }
}

/// `reveille status --watch` (each transition as it happens: RingTests, beside a one-shot's ring).
@Suite struct WatchTests {
    @Test func aWatcherWithoutRightsIsRefusedAndOthersAreUnaffected() throws {
        guard isRoot else {
            print("skipped: needs root, to run the CLI as a user outside the socket group")
            return
        }
        let daemon = SharedDaemon.unchanged
        let refused = try daemon.cli(asUID: 65534, gid: 65534, "status", "--watch")
        #expect(refused.status == 1)
        #expect(daemon.answersStatus())
    }
}
