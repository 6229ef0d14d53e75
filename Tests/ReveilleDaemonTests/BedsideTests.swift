import Foundation
import Glibc
import ReveilleCore
import ReveilleInput
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// A keypad at the bed (issue 15), through the real daemon: a FIFO given as the device path is fed
/// the kernel's `input_event` records (this machine has neither /dev/uinput nor CUSE), and the voice
/// is real espeak-ng, its words in the log and its sound in ALSA's file plugin.
@Suite(.serialized) struct BedsideTests {
    /// A daemon reading a keypad at `ROOT/keypad` (a FIFO), with the voice on.
    final class Bedside {
        let daemon: DaemonHarness
        let keypad: String
        private(set) var writer: Int32 = -1

        init(
            input: String = "", voice: Bool = true, voiceName: String = "en", nfcReader: Bool = false,
            extraDevice: String? = nil
        ) throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("keypad-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            keypad = root.appendingPathComponent("keypad").path
            #expect(mkfifo(keypad, 0o600) == 0)
            let extra = extraDevice.map { root.appendingPathComponent($0).path }
            if let extra { #expect(mkfifo(extra, 0o600) == 0) }
            let devices = ([keypad] + (extra.map { [$0] } ?? [])).map { "\"\($0)\"" }.joined(separator: ", ")
            let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
                "speech-\(UUID().uuidString).wav")
            daemon = try DaemonHarness(
                settings: """
                    [audio]
                    devices = ["file:'\(capture.path)',wav"]
                    [input]
                    devices = [\(devices)]
                    \(input)
                    [voice]
                    enabled = \(voice)
                    voice = "\(voiceName)"

                    """, nfcReader: nfcReader)
            try plugIn()
        }

        deinit { if writer >= 0 { close(writer) } }

        /// Opens the writing end, once the daemon reads the FIFO (without a reader, the open
        /// fails with ENXIO rather than block).
        func plugIn() throws {
            #expect(try daemon.waitFor { try inputCondition() == .ok })
            #expect(
                daemon.waitFor(3) { () -> Bool in
                    writer = open(keypad, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                    return writer >= 0
                })
        }

        /// The keypad is pulled out: its writer goes away, and so does its node, as udev removes it.
        func unplug() {
            close(writer)
            writer = -1
            unlink(keypad)
        }

        func inputCondition() throws -> InputState.Condition? {
            try daemon.request(.status).status?.inputs.first { $0.path == keypad }?.condition
        }

        func send(_ bytes: [UInt8]) {
            #expect(write(writer, bytes, bytes.count) == bytes.count)
        }

        /// Presses and releases a key by its kernel name, each followed by a SYN_REPORT as the kernel does.
        func tap(_ name: String) {
            press(name)
            release(name)
        }

        func press(_ name: String) { key(name, value: 1) }
        func release(_ name: String) { key(name, value: 0) }

        private func key(_ name: String, value: Int32) {
            let sync = InputEvent(type: InputEvent.synchronization, code: 0, value: 0).bytes
            send(InputEvent(type: InputEvent.key, code: KeyNames.code(name)!, value: value).bytes + sync)
        }

        /// Bytes written to the device and not yet read by the daemon.
        var unread: Int32 {
            var count: Int32 = 0
            return ioctl(writer, UInt(FIONREAD), &count) == 0 ? count : -1
        }

        /// Types a number on the keypad's digit keys.
        func type(_ number: Int) {
            for digit in String(number) { tap("KEY_KP\(digit)") }
        }

        /// How many times the log says the voice was asked to say `text`.
        func said(_ text: String) -> Int {
            daemon.logText().components(separatedBy: "voice: saying \"\(text)\"").count - 1
        }

        func ringing(_ arguments: String...) throws {
            let add = try daemon.cli(["alarm", "add", "--in", "1s", "--fade-in", "0"] + arguments)
            #expect(add.status == 0, "\(add.stderr)")
            #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        }
    }

    /// Unplugged and plugged in again, the keypad works: a press snoozes, and one past the limit is
    /// refused aloud; unmapped keys, garbage and a truncated event are ignored.
    @Test func aReplugGarbageThenAPressSnoozesAndOnePastTheLimitIsRefusedAloud() throws {
        let bedside = try Bedside()
        let daemon = bedside.daemon
        bedside.unplug()
        #expect(try daemon.waitFor(3) { try bedside.inputCondition() == .unplugged })
        let status = try daemon.cli("status").stdout
        #expect(status.contains("buttons: unplugged: keypad (\(bedside.keypad))"), "\(status)")
        // udev creates the node again on re-plug.
        #expect(mkfifo(bedside.keypad, 0o600) == 0)
        try bedside.plugIn()

        try bedside.ringing("--max-snoozes", "1")
        // Unmapped keys and garbage, while a snooze is there to take: ignored.
        bedside.tap("KEY_Q")
        bedside.tap("KEY_VOLUMEUP")
        var noise = (0..<(InputEvent.size * 40)).map { _ in UInt8.random(in: 0...255) }
        // Codes no map contains: garbage that happens to look like the snooze key would snooze.
        for index in stride(from: 0, to: noise.count, by: InputEvent.size) {
            noise[index + 2 * MemoryLayout<Int>.size] = 0x7F
        }
        bedside.send(noise)
        #expect(daemon.waitFor(3) { bedside.unread == 0 }, "the daemon read it all")
        #expect(try daemon.session()?.state == .ringing)
        #expect(try daemon.session()?.snoozeCount == 0)

        bedside.tap("KEY_SPACE")
        #expect(try daemon.waitFor(3) { try daemon.session()?.state == .snoozed })
        #expect(daemon.logText().contains("input: snoozed alarm #1 (KEY_SPACE)"))

        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        bedside.tap("KEY_SPACE")
        #expect(daemon.waitFor(3) { bedside.said("No snoozes left. Press a number key for the problem.") == 1 })
        #expect(try daemon.session()?.state == .ringing)
        #expect(try daemon.session()?.snoozeCount == 1)

        // A truncated event at the end: read, held, and nothing breaks.
        bedside.send(Array(InputEvent(type: InputEvent.key, code: 57, value: 1).bytes.prefix(5)))
        #expect(daemon.waitFor(3) { bedside.unread == 0 }, "the daemon read it all")
        #expect(daemon.answersStatus())
        #expect(try daemon.session()?.state == .ringing)
        #expect(try bedside.inputCondition() == .ok)
    }

    /// Answering at the bed: a number key begins and the problem is said; a long press of snooze
    /// says it again and does not snooze; a wrong answer gets a new problem, said aloud; the right
    /// one and Enter dismiss. The wake-up check is answered by a key. Then, with nothing ringing,
    /// the snooze key right after a chime asks for it again (docs/guide/reminders.md, "Reminders").
    @Test func aProblemIsSaidAnsweredWrongThenRightAndAKeyAnswersTheWakeUpCheck() throws {
        let bedside = try Bedside(input: "long_press_ms = 300")
        let daemon = bedside.daemon
        try bedside.ringing("--wake-check", "1m")
        bedside.tap("KEY_KP5")  // begins answering: not part of the answer
        #expect(daemon.waitFor(3) { daemon.logText().contains("input: answering begins (KEY_KP5)") })
        let first = try #require(try daemon.request(.problem).problem)
        #expect(
            daemon.waitFor(3) {
                daemon.logText().contains(
                    "voice: saying \"\(Spoken.problem(MathProblem(text: first, answer: solve(first))))\"")
            })
        #expect(daemon.logText().components(separatedBy: "voice: saying").count - 1 == 1)
        // Held: the problem is said again while the key is still down (not at its release).
        bedside.press("KEY_SPACE")
        #expect(daemon.waitFor(3) { daemon.logText().components(separatedBy: "voice: saying").count - 1 == 2 })
        bedside.release("KEY_SPACE")
        #expect(try daemon.session()?.state == .ringing, "a long press is not a snooze")
        #expect(try daemon.request(.problem).problem == first, "the same problem, said again")

        bedside.type(solve(first) + 1)
        bedside.tap("KEY_KPENTER")
        #expect(daemon.waitFor(3) { daemon.logText().contains("voice: saying \"Wrong. Here is a new one. ") })
        #expect(try daemon.session()?.state == .ringing)
        #expect(try daemon.session()?.wrongAnswers == 1)
        let second = try #require(try daemon.request(.problem).problem)
        bedside.type(solve(second))
        bedside.tap("KEY_ENTER")
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.first?.state == .dismissed)
        #expect(history.first?.dismissedBy == .math)

        try daemon.advance(by: 61)
        #expect(daemon.waitFor { bedside.said(Spoken.areYouUp) == 1 })
        bedside.tap("KEY_SPACE")
        #expect(daemon.waitFor(3) { daemon.logText().contains("wake-up check of alarm #1 passed (key KEY_SPACE)") })
        // The press answered the check: it neither snoozed nor said the time.
        #expect(!daemon.logText().contains("voice: saying \"It is"))
        #expect(try daemon.request(.stats(days: 1)).stats?.wakeChecksPassed == 1)

        let berlin = try #require(Zone(builtIn: "Europe/Berlin"))
        var resolver = ZoneResolver(zone: berlin)
        let next = resolver.local(at: try #require(try daemon.request(.status).status?.nowInstant) + 120)
        let at = LocalTime(hour: next.time.hour, minute: next.time.minute)!
        #expect(
            try daemon.cli(
                "reminder", "add", "drink water", "--date", next.date.description, "--at", at.hoursAndMinutes
            )
            .status == 0)
        try daemon.setNow(resolver.resolve(next.date, at).instant)
        #expect(daemon.waitFor(5) { daemon.logText().contains("reminder \"drink water\" (reminder #1) chimes (due") })
        bedside.tap("KEY_SPACE")
        #expect(daemon.waitFor(3) { bedside.said("drink water. Again in 10 minutes.") == 1 }, "\(daemon.logText())")
        #expect(daemon.logText().contains("chimes again at ") && daemon.logText().contains("asked by key KEY_SPACE"))
        let ahead = try daemon.request(.next(days: 1)).schedule?.reminders ?? []
        #expect(ahead.contains { $0.text == "drink water" && $0.origin == "again: reminder #1" }, "\(ahead)")
    }

    /// With nothing ringing, a press says the time and the next ring; a tag alarm asks for the tag.
    @Test func aPressWithNothingRingingSaysTheTimeAndATagAlarmAsksForTheTag() throws {
        let bedside = try Bedside(nfcReader: true)
        let daemon = bedside.daemon
        #expect(try daemon.cli("alarm", "add", "07:30", "--days", "daily").status == 0)
        // The press wakes the screen too: its page hears it on the watch stream.
        let watcher = try daemon.connect()
        #expect(try watcher.send(.watch).ok)
        bedside.tap("BTN_0")
        var heard = false
        for _ in 0..<20 where !heard {
            guard let line = try watcher.readLine() else { break }
            heard = String(decoding: line, as: UTF8.self).contains("\"screenWake\"")
        }
        #expect(heard, "a bedside key wakes the screen")
        #expect(daemon.waitFor(3) { daemon.logText().contains("voice: saying \"It is ") })
        #expect(daemon.logText().contains("The next alarm rings "))
        #expect(daemon.logText().contains(" at 7 30.\""))
        #expect(try daemon.session() == nil)

        #expect(try daemon.cli("tag", "add", "--label", "bathroom", "--uid", UIDText.bathroom).status == 0)
        try bedside.ringing("--challenge", "nfc")
        bedside.tap("KEY_KPASTERISK")
        #expect(daemon.waitFor(3) { bedside.said("Tap your tag on the reader.") == 1 })
        #expect(try daemon.session()?.state == .ringing)
    }

    @Test func oneKeypadUnpluggedMidRingLeavesTheOtherButtonWorking() throws {
        let bedside = try Bedside(extraDevice: "button")
        let daemon = bedside.daemon
        let button = (bedside.keypad as NSString).deletingLastPathComponent + "/button"
        #expect(try daemon.waitFor { try daemon.request(.status).status?.inputs.count == 2 })
        let other = open(button, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(other >= 0)
        defer { close(other) }
        try bedside.ringing()
        bedside.unplug()
        #expect(try daemon.waitFor(3) { try bedside.inputCondition() == .unplugged })
        let space = KeyNames.code("KEY_SPACE")!
        let press =
            InputEvent(type: InputEvent.key, code: space, value: 1).bytes
            + InputEvent(type: InputEvent.key, code: space, value: 0).bytes
        #expect(write(other, press, press.count) == press.count)
        #expect(try daemon.waitFor(3) { try daemon.session()?.state == .snoozed })
        #expect(try daemon.cli("status").status == 0)
    }

    @Test func withoutTheVoiceItNeedsEverythingWorksSilentlyAndSaysWhy() throws {
        let bedside = try Bedside(voiceName: "xx-nosuchvoice")
        let daemon = bedside.daemon
        try bedside.ringing()
        bedside.tap("KEY_KPASTERISK")
        #expect(daemon.waitFor(3) { daemon.logText().contains("voice: espeak-ng has no voice \"xx-nosuchvoice\"") })
        #expect(try daemon.cli("status").stdout.contains("voice: silent: espeak-ng has no voice \"xx-nosuchvoice\""))
        let problem = try #require(try daemon.request(.problem).problem)
        bedside.type(solve(problem))
        bedside.tap("KEY_KPENTER")
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
    }

    @Test func theVoiceIsInTheSoundAndTheAlarmIsDuckedUnderIt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("duck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let keypad = root.appendingPathComponent("keypad").path
        #expect(mkfifo(keypad, 0o600) == 0)
        let daemon = try DaemonHarness(
            settings: """
                [audio]
                devices = ["file:'\(root.path)/sound.wav',wav"]
                [input]
                devices = ["\(keypad)"]
                """)
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try daemon.waitFor { try daemon.request(.status).status?.inputs.first?.condition == .ok })
        let writer = open(keypad, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(writer >= 0)
        defer { close(writer) }
        #expect(
            try daemon.cli("alarm", "add", "--in", "1s", "--fade-in", "0", "--max-snoozes", "1", "--volume", "100")
                .status == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing }, "\(daemon.logText())")
        #expect(try daemon.cli("snooze").status == 0)
        try daemon.setNow(Int(Date().timeIntervalSince1970) + 9 * 60 + 1)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        // Two seconds of the tone alone, then a refused snooze: the voice, with the tone lowered under it.
        let capture = root.path + "/sound.wav"
        func captured() -> Int { ((try? FileManager.default.attributesOfItem(atPath: capture))?[.size] as? Int) ?? 0 }
        #expect(daemon.waitFor(6) { captured() > 44 + 96_000 * 2 })
        let space = KeyNames.code("KEY_SPACE")!
        let press =
            InputEvent(type: InputEvent.key, code: space, value: 1).bytes
            + InputEvent(type: InputEvent.key, code: space, value: 0).bytes
        #expect(write(writer, press, press.count) == press.count)
        #expect(daemon.waitFor(5) { daemon.logText().contains("voice: first frame of \"No snoozes left.") })
        // Three more seconds in the capture: the voice and the lowered tone under it.
        let atVoice = captured()
        #expect(daemon.waitFor(8) { captured() > atVoice + 96_000 * 3 })
        _ = try daemon.dismissByMath()
        #expect(try daemon.waitFor(3) { try daemon.session() == nil })
        #expect(daemon.wavClosed(capture))

        let recording = try Recording(contentsOf: root.path + "/sound.wav")
        // The tone (880 Hz) alone at first; speech adds energy low in the speech band, where the
        // tone has none. Find where it starts, 50 ms at a time.
        let window = 0.05
        let speechBand = [150.0, 250.0, 350.0, 450.0]
        func speech(at start: Double) -> Double {
            speechBand.map { recording.power(at: $0, from: start, to: start + window) }.reduce(0, +)
        }
        let quiet = stride(from: 0.1, to: 1.5, by: window).map(speech).max() ?? 0
        let spokenAt = stride(from: 1.5, to: recording.seconds - window, by: window).first {
            speech(at: $0) > max(quiet * 20, 1e-6)
        }
        let start = try #require(spokenAt, "no speech found in \(recording.seconds) s of sound")
        // The tone's loudest beep in a full cycle (1.2 s) before the voice, and while it speaks.
        let before = recording.peakPower(at: 880, from: start - 1.4, to: start - 0.2, window: window)
        let during = recording.peakPower(at: 880, from: start + 0.2, to: start + 1.4, window: window)
        #expect(during < before / 4, "the alarm is lowered under the voice: \(during) against \(before)")
    }
}

extension Recording {
    /// The largest power at `frequency` over windows of `window` seconds between `start` and `end`.
    func peakPower(at frequency: Double, from start: Double, to end: Double, window: Double) -> Double {
        stride(from: max(0, start), to: end, by: window).map { power(at: frequency, from: $0, to: $0 + window) }
            .max() ?? 0
    }
}
