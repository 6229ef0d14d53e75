import Foundation
import Logging
import ReveilleCore
import ReveilleTestSupport
import Synchronization
import Testing

@testable import ReveilleNFC

/// Real libnfc (the `pn532_uart` driver) against the emulated PN532 on a pseudo-terminal.
@Suite(.serialized) struct EmulatedReaderTests {
    let folder: String
    let emulator: PN532Emulator
    var connstring: String { "pn532_uart:" + emulator.link }

    init() throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("reveille-nfc-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        emulator = try PN532Emulator(link: folder + "/reader")
    }

    @Test func libnfcOpensTheEmulatorAndSeesTagsComeAndGo() throws {
        let device = try NFCDevice(connstring: connstring)
        #expect(device.name == connstring)
        #expect(try device.poll() == nil)
        emulator.present(uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(try device.poll() == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(try device.poll() == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])  // still there
        emulator.present(uid: [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try device.poll() == [0xDE, 0xAD, 0xBE, 0xEF])
        emulator.removeTag()
        #expect(try device.poll() == nil)
        // What libnfc sent: the firmware query, SAM configuration, and the polls.
        let commands = emulator.commandsReceived
        for code: UInt8 in [0x02, 0x14, 0x4A] { #expect(commands.contains(code), "\(commands)") }
    }

    @Test func libnfcsOwnToolSeesTheEmulatedTag() throws {
        emulator.present(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nfc-poll")
        process.environment = ["LIBNFC_DEVICE": connstring, "LIBNFC_AUTO_SCAN": "false"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output.contains("04  11  22  33  44  55  66"), "\(output)")
    }

    @Test func aMissingDeviceIsAbsentAndNamesThePath() {
        emulator.unplug()
        #expect(throws: NFCError.self) { try NFCDevice(connstring: connstring) }
        do {
            _ = try NFCDevice(connstring: "pn532_uart:" + folder + "/nowhere")
        } catch {
            #expect(error.absent)
            #expect(error.message == "no device at \(folder)/nowhere")
        }
    }

    @Test func anUnpluggedReaderFailsThePollAndAReplugOpensAgain() throws {
        let device = try NFCDevice(connstring: connstring)
        #expect(try device.poll() == nil)
        emulator.unplug()
        #expect(throws: NFCError.self) { try device.poll() }
        try emulator.plugIn()
        emulator.present(uid: [0x04, 1, 2, 3, 4, 5, 6])
        #expect(try NFCDevice(connstring: connstring).poll() == [0x04, 1, 2, 3, 4, 5, 6])
    }

    @Test func corruptFramesAreErrorsNotCrashes() throws {
        let device = try NFCDevice(connstring: connstring)
        emulator.present(uid: [0x04, 1, 2, 3, 4, 5, 6])
        emulator.corruptNextResponses(3)
        for _ in 0..<3 { _ = try? device.poll() }
        // Once the chip talks sense again, a reopened device reads the tag.
        #expect(try NFCDevice(connstring: connstring).poll() == [0x04, 1, 2, 3, 4, 5, 6])
    }
}

/// The reader service: polling on demand, debounced events, health that heals.
@Suite(.serialized) struct NFCReaderTests {
    let emulator: PN532Emulator
    let connstring: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-nfcr-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        emulator = try PN532Emulator(link: folder + "/reader")
        connstring = "pn532_uart:" + emulator.link
    }

    final class Events: Sendable {
        let tags = Mutex<[String]>([])
        let healths = Mutex<[ReaderHealth]>([])
    }

    private func started(_ reader: NFCReader) -> Events {
        let events = Events()
        reader.start(
            onTag: { uid, _ in events.tags.withLock { $0.append(UID.hex(uid)) } },
            onHealth: { health in events.healths.withLock { $0.append(health) } })
        return events
    }

    @Test func aTagHeldOnTheReaderCountsOnce() throws {
        let reader = NFCReader(connstring: connstring, pollInterval: 0.02, logger: Logger(label: "test"))
        defer { reader.stop() }
        let events = started(reader)
        #expect(waitFor(5) { reader.health == .ok(connstring) })
        reader.setPolling("test", true)
        emulator.present(uid: [0x04, 1, 2, 3, 4, 5, 6])
        #expect(waitFor(3) { events.tags.withLock { $0 } == ["04010203040506"] })
        Thread.sleep(forTimeInterval: 0.3)  // held: no second event
        #expect(events.tags.withLock { $0 } == ["04010203040506"])
        emulator.removeTag()
        Thread.sleep(forTimeInterval: 0.2)
        emulator.present(uid: [0x04, 1, 2, 3, 4, 5, 6])
        #expect(waitFor(3) { events.tags.withLock { $0 }.count == 2 })
    }

    @Test func idleItDoesNotPoll() throws {
        let reader = NFCReader(connstring: connstring, pollInterval: 0.02, logger: Logger(label: "test"))
        defer { reader.stop() }
        let events = started(reader)
        #expect(waitFor(5) { reader.health == .ok(connstring) })
        let before = emulator.commandsReceived.count
        emulator.present(uid: [0x04, 1, 2, 3, 4, 5, 6])
        Thread.sleep(forTimeInterval: 0.5)
        #expect(events.tags.withLock { $0 }.isEmpty)
        #expect(emulator.commandsReceived.count <= before + 1)  // at most the power-down as it idles
        reader.setPolling("ring", true)
        #expect(waitFor(3) { events.tags.withLock { $0 }.count == 1 })
        reader.setPolling("ring", false)
    }

    @Test func anUnpluggedReaderGoesAbsentAndComesBackByItself() throws {
        let reader = NFCReader(connstring: connstring, pollInterval: 0.02, logger: Logger(label: "test"))
        defer { reader.stop() }
        let events = started(reader)
        reader.setPolling("ring", true)
        #expect(waitFor(5) { reader.health == .ok(connstring) })
        emulator.unplug()
        #expect(waitFor(5) { !reader.health.isHealthy })
        #expect(waitFor(5) { if case .absent = reader.health { true } else { false } })
        try emulator.plugIn()
        emulator.present(uid: [0x04, 9, 9, 9, 9, 9, 9])
        #expect(waitFor(10) { reader.health == .ok(connstring) })
        #expect(waitFor(3) { events.tags.withLock { $0 } == ["04090909090909"] })
        #expect(events.healths.withLock { $0 }.contains { !$0.isHealthy })
    }

    @Test func noReaderAtAllIsAbsentWithThePath() throws {
        let reader = NFCReader(connstring: "pn532_uart:/dev/reveille-no-reader", logger: Logger(label: "test"))
        defer { reader.stop() }
        _ = started(reader)
        #expect(
            waitFor(5) {
                reader.health == .absent("no device at /dev/reveille-no-reader (pn532_uart:/dev/reveille-no-reader)")
            })
    }
}

@Suite struct TagDebouncerTests {
    @Test func heldTagsCountOnceAndReturningOnesAgain() {
        var debouncer = TagDebouncer()
        #expect(debouncer.seen(nil) == [])
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: true)])
        #expect(debouncer.seen([1, 2, 3, 4]) == [])
        #expect(debouncer.seen([5, 6, 7, 8]) == [.lifted, .placed([5, 6, 7, 8], fresh: true)])
        #expect(debouncer.seen(nil) == [.lifted])
        #expect(debouncer.seen([5, 6, 7, 8]) == [.placed([5, 6, 7, 8], fresh: true)])
    }

    /// The defect of issue 12: a tag lying on the reader when polling begins is no tap.
    @Test func aTagSeenByTheFirstPollIsNotFresh() {
        var debouncer = TagDebouncer()
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: false)])
        #expect(debouncer.seen([1, 2, 3, 4]) == [])
        #expect(debouncer.seen(nil) == [.lifted])
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: true)])
        debouncer.reset()
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: false)])
    }

    /// A reader that failed and came back: an empty field before means a tag now was placed since.
    @Test func aReopenedReaderKeepsWhatItKnewOfAnEmptyField() {
        var debouncer = TagDebouncer()
        #expect(debouncer.seen(nil) == [])
        debouncer.reopened()
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: true)])
        debouncer.reopened()  // the tag was there when it failed: it may be lying there still
        #expect(debouncer.seen([1, 2, 3, 4]) == [.placed([1, 2, 3, 4], fresh: false)])
    }

    @Test func backoffDoublesToItsCap() {
        var backoff = Backoff()
        #expect((0..<6).map { _ in backoff.next() } == [1, 2, 4, 8, 8, 8])
        backoff.reset()
        #expect(backoff.next() == 1)
    }

    @Test func uidsParseAndPrint() {
        #expect(UID.parse("04:A1:B2:C3:D4:E5:F6") == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(UID.parse("deadbeef") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(UID.parse("DEADBE") == nil)  // 3 bytes
        #expect(UID.parse("xyz1") == nil)
        #expect(UID.hex([0x04, 0x0A]) == "040A")
        #expect(UID.isRandom([0x08, 1, 2, 3]))
        #expect(!UID.isRandom([0x08, 1, 2, 3, 4, 5, 6]))
    }
}
