import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// Tags end to end: the real daemon reading an emulated PN532 through real libnfc (docs/guide/devices.md, "NFC tags").
@Suite struct NFCTests {
    static let bathroom: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    static let kitchen: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let stranger: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]

    @Test func tagsAreRegisteredByATapListedTestedAndRemoved() throws {
        let daemon = try DaemonHarness(nfcReader: true)
        let emulator = try #require(daemon.emulator)
        #expect(try daemon.cli("status").stdout.contains("NFC reader: ok (\(daemon.readerConnstring))\n"))

        emulator.present(uid: Self.bathroom)
        let add = try daemon.cli("tag", "add", "--label", "bathroom", "--timeout", "10")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(
            add.stdout
                == "Place the tag on the reader (waiting up to 10 s)...\nregistered tag \"bathroom\" (UID 04A1B2C3D4E5F6)\n"
        )
        emulator.removeTag()

        let sameLabel = try daemon.cli("tag", "add", "--label", "bathroom", "--uid", "04112233445566")
        #expect(sameLabel.status == 1)
        #expect(
            sameLabel.stderr
                == "reveille: a tag is already registered as \"bathroom\" (UID 04A1B2C3D4E5F6); pick another label or 'reveille tag rm bathroom' first\n"
        )
        emulator.present(uid: Self.bathroom)
        let sameTag = try daemon.cli("tag", "add", "--label", "hall", "--timeout", "10")
        #expect(sameTag.stderr == "reveille: this tag (UID 04A1B2C3D4E5F6) is already registered as \"bathroom\"\n")
        emulator.present(uid: [0x08, 0x12, 0x34, 0x56])
        let random = try daemon.cli("tag", "add", "--label", "phone", "--timeout", "10")
        #expect(random.status == 1)
        #expect(
            random.stderr
                == "reveille: tag 08123456 shows a random UID (a new one at every tap, as phones and some cards do); use a plain NFC sticker or card\n"
        )
        emulator.removeTag()

        #expect(try daemon.cli("tag", "add", "--label", "kitchen", "--uid", "04:11:22:33:44:55:66").status == 0)
        let badHex = try daemon.cli("tag", "add", "--label", "x", "--uid", "zz")
        #expect(
            badHex.stderr
                == "reveille: --uid \"zz\": give the tag's UID as 4, 7 or 10 bytes of hex, like 04A1B2C3D4E5F6\n")
        let badLabel = try daemon.cli("tag", "add", "--label", "my tag", "--uid", "04112233")
        #expect(badLabel.stderr.hasPrefix("reveille: tag label \"my tag\": use 1-32 letters"))

        let list = try daemon.cli("tag", "list").stdout
        #expect(list.hasPrefix("LABEL     UID             ADDED\nbathroom  04A1B2C3D4E5F6  "))
        #expect(list.contains("\nkitchen   04112233445566  "))

        emulator.present(uid: Self.kitchen)
        #expect(
            try daemon.cli("tag", "test", "--timeout", "10").stdout
                == "Place a tag on the reader (waiting up to 10 s)...\nUID 04112233445566: registered as \"kitchen\"\n")
        emulator.present(uid: Self.stranger)
        #expect(
            try daemon.cli("tag", "test", "--timeout", "10").stdout.hasSuffix(
                "UID DEADBEEF: not registered; add it with 'reveille tag add --label NAME --uid DEADBEEF'\n"))
        emulator.removeTag()
        let nothing = try daemon.cli("tag", "test", "--timeout", "1")
        #expect(nothing.status == 1)
        #expect(
            nothing.stderr
                == "reveille: no tag was placed on the reader within 1 s; hold it flat on the reader and try again\n")

        #expect(try daemon.cli("alarm", "add", "6:00", "--challenge", "nfc", "--tag", "kitchen").status == 0)
        let unknown = try daemon.cli("alarm", "add", "6:00", "--challenge", "nfc", "--tag", "garage")
        #expect(
            unknown.stderr
                == "reveille: --tag \"garage\" is not a registered tag; see 'reveille tag list' or add it with 'reveille tag add --label garage'\n"
        )
        #expect(
            try daemon.cli("tag", "rm", "kitchen").stdout
                == "removed tag \"kitchen\"; alarm #1 now takes any registered tag\n")
        #expect(
            try daemon.cli("tag", "rm", "kitchen").stderr
                == "reveille: no tag is registered as \"kitchen\"; see 'reveille tag list'\n")
    }

    @Test func duringARingOnlyARegisteredTagThatTheAlarmTakesDismissesItCorruptFramesOrAnUnpluggedReader() throws {
        let daemon = try DaemonHarness(nfcReader: true)
        let emulator = try #require(daemon.emulator)
        #expect(try daemon.cli("tag", "add", "--label", "bathroom", "--uid", UIDText.bathroom).status == 0)
        #expect(try daemon.cli("tag", "add", "--label", "kitchen", "--uid", UIDText.kitchen).status == 0)
        let add = try daemon.cli(
            "alarm", "add", "--in", "1s", "--label", "up", "--challenge", "nfc", "--tag", "bathroom")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.cli("status").stdout.contains("to stop it: scan your tag on the reader\n"))

        emulator.present(uid: NFCTests.stranger)
        #expect(daemon.waitFor(3) { daemon.logText().contains("tag DEADBEEF is not registered; alarm #1 up rings on") })
        emulator.removeTag()
        #expect(emulator.awaitPolls(2), "the reader sees the field empty")
        emulator.present(uid: NFCTests.kitchen)
        #expect(
            daemon.waitFor(3) {
                daemon.logText().contains("tag \"kitchen\": tag \"kitchen\" does not stop alarm #1 up")
            })
        #expect(try daemon.session()?.state == .ringing)
        emulator.removeTag()
        #expect(emulator.awaitPolls(2), "the reader sees the field empty")

        // Corrupt frames from the reader stop neither the daemon nor the tag's tap after them.
        emulator.corruptNextResponses(6)
        #expect(emulator.awaitCorruptResponsesSent())
        #expect(daemon.answersStatus())
        #expect(try daemon.session()?.state == .ringing)

        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(15) { try daemon.session() == nil }, "\(daemon.logText())")
        #expect(daemon.waitFor(2) { daemon.logText().contains("sound: stopped on") })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.first?.dismissedBy == .tag && history.first?.dismissedTag == "bathroom")
        #expect(try daemon.cli("history").stdout.contains(" dismissed by tag bathroom at "))

        // The next ring: the reader unplugged mid-ring offers math, and plugged back it reconnects
        // by itself.
        emulator.removeTag()
        #expect(try daemon.cli("alarm", "add", "--in", "1s", "--challenge", "nfc").status == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        emulator.unplug()
        #expect(try daemon.waitFor(5) { try daemon.session()?.challenge == .any })
        // The reader first stops answering (failing), then its device is gone (absent).
        var status = ""
        #expect(
            try daemon.waitFor(5) {
                status = try daemon.cli("status").stdout
                return status.contains("NFC reader: absent: no device at ")
            }, "\(status)")
        #expect(
            status.contains(
                "to stop it: scan your tag, or answer 3 math problems with 'reveille dismiss' (no NFC reader works) (the NFC reader: it stopped during the ring)\n"
            ))
        #expect(try daemon.request(.problem).problem != nil)

        try emulator.plugIn()
        #expect(
            try daemon.waitFor(10) {
                try daemon.cli("status").stdout.contains("NFC reader: ok (\(daemon.readerConnstring))\n")
            })
        emulator.present(uid: NFCTests.bathroom)
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
    }

    /// (A tag added by its UID without a reader: ControllerTests and the in-process tag tests.)
    /// A reader unplugged while the clock is idle is noticed when its device node goes (no request,
    /// no idle check needed), so a ring two minutes later says the reader stopped two minutes
    /// before it, and offers math.
    @Test func aReaderUnpluggedWhileIdleIsNoticedAtOnce() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-24 06:00:00"), nfcReader: true)
        let emulator = try #require(daemon.emulator)
        #expect(try daemon.cli("tag", "add", "--label", "bathroom", "--uid", UIDText.bathroom).status == 0)
        #expect(try daemon.cli("alarm", "add", "6:05", "--challenge", "nfc").status == 0)
        emulator.unplug()
        #expect(
            daemon.waitFor(3) {
                daemon.logText().contains("NFC reader: absent") || daemon.logText().contains("NFC reader: failing")
            },
            "the unplug was not noticed by itself: \(daemon.logText())")
        try daemon.setNow(instant("2026-11-24 06:05:00"))
        #expect(try daemon.waitFor(5) { try daemon.session()?.state == .ringing })
        let session = try #require(try daemon.session())
        #expect(session.fellBackToMath)
        let lost = try #require(session.readerLostSecondsBeforeRing)
        #expect((290...305).contains(lost), "lost \(lost) s before the ring, not 5 min")
    }

    @Test func withoutAReaderTagsNeedTheirUID() throws {
        let daemon = SharedDaemon.unchanged
        #expect(
            try daemon.cli("status").stdout.contains("NFC reader: none configured (alarms are dismissed by math)\n"))
        let tap = try daemon.cli("tag", "add", "--label", "bathroom", "--timeout", "2")
        #expect(tap.status == 1)
        #expect(
            tap.stderr
                == "reveille: no NFC reader is configured: set [nfc] device in reveille.toml (see hardware.md), or give the tag's UID with --uid\n"
        )
        #expect(try daemon.request(.tagList).tags?.isEmpty == true)
    }
}

enum UIDText {
    static let bathroom = "04A1B2C3D4E5F6"
    static let kitchen = "04112233445566"
}
