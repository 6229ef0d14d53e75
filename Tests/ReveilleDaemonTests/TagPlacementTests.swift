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

    @Test func aTagLyingOnTheReaderWhenTheAlarmStartsDoesNotStopIt() throws {
        let (daemon, emulator) = try ringingWithTheTagLyingThere()
        // A hundred looks at the field with the tag lying there: a hundred chances to be fooled.
        #expect(emulator.awaitPolls(100))
        #expect(try daemon.session()?.state == .ringing)
        let status = try daemon.cli("status").stdout
        #expect(
            status.contains("to stop it: scan your tag on the reader\na tag is on the reader: lift it, then tap it\n"))
        #expect(try daemon.session()?.tagOnReader == true)

        emulator.removeTag()
        #expect(try daemon.waitFor(3) { try daemon.session()?.tagOnReader == false })
        #expect(try daemon.session()?.state == .ringing)
        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.first?.dismissedBy == .tag)
    }

    @Test func theTagStillLyingThereWhenASnoozeEndsDoesNotStopItEither() throws {
        let (daemon, emulator) = try ringingWithTheTagLyingThere()
        #expect(try daemon.cli("snooze").status == 0)
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(emulator.awaitPolls(100))
        #expect(try daemon.session()?.state == .ringing)
        #expect(try daemon.session()?.tagOnReader == true)

        emulator.removeTag()
        #expect(emulator.awaitPolls(2), "the reader sees the field empty")
        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
    }

    @Test func aTapDuringASnoozeDismissesTheAlarm() throws {
        let daemon = try DaemonHarness(nfcReader: true)
        let emulator = try #require(daemon.emulator)
        #expect(try daemon.cli("tag", "add", "--label", "bathroom", "--uid", UIDText.bathroom).status == 0)
        #expect(try daemon.cli("alarm", "add", "--in", "1s", "--challenge", "nfc").status == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.cli("snooze").status == 0)
        #expect(try daemon.session()?.state == .snoozed)

        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.first?.state == .dismissed && history.first?.dismissedBy == .tag)
        #expect(history.first?.snoozes == 1)
        // Nothing rings when the snooze would have ended.
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.settle())
        #expect(try daemon.session() == nil)
    }
}

/// `reveille status --watch` prints each transition as it happens.
@Suite struct WatchTests {
    @Test func statusWatchPrintsEachTransitionInOrder() throws {
        let daemon = try DaemonHarness()
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
        func text() -> String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
        #expect(daemon.waitFor(5) { text().contains("next ring: none") })

        #expect(try daemon.cli("alarm", "add", "--in", "2s", "--label", "nap").status == 0)
        #expect(daemon.waitFor(5) { text().contains(" RINGING: alarm #1 nap") })
        #expect(try daemon.cli("snooze").status == 0)
        #expect(daemon.waitFor(5) { text().contains(" SNOOZED: alarm #1 nap until ") })
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(daemon.waitFor(5) { text().components(separatedBy: " RINGING: alarm #1 nap").count == 3 })
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(5) { text().contains(" DISMISSED: alarm #1 nap by math") })
        // Stamped on the daemon's clock, in its zone (Berlin here, whatever this machine's).
        let now = try #require(try daemon.request(.status).status?.now)
        let hour = String(now.dropFirst(11).prefix(3))
        #expect(
            text().split(separator: "\n").contains { $0.hasPrefix(hour) && $0.contains(" DISMISSED: ") }, "\(text())")

        // The lines after the status block, without their time stamps, in order.
        let events = text().split(separator: "\n").filter { $0.count > 9 && $0.dropFirst(2).hasPrefix(":") }
            .map { $0.dropFirst(9).prefix(while: { $0 != "(" && $0 != ";" }) }
            .map { $0.components(separatedBy: " until ")[0].trimmingCharacters(in: .whitespaces) }
        #expect(events.contains("the schedule changed"), "\(text())")  // the alarm added
        #expect(
            events.filter { !$0.hasPrefix("next ring") && !$0.hasPrefix("the schedule changed") } == [
                "RINGING: alarm #1 nap", "SNOOZED: alarm #1 nap", "RINGING: alarm #1 nap",
                "DISMISSED: alarm #1 nap by math",
            ], "\(text())")
    }

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
