import CSndFile
import Foundation
import ReveilleCore
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// The ring sessions' sound end to end: the real daemon playing through real alsa-lib into ALSA's
/// file plugin (see `DaemonHarness.soundCapture`), driven by the real CLI.
@Suite struct SoundTests {
    @Test func anAlarmSoundsFromTheFireUntilTheDismissalItsOwnFileTooOrTheToneForAFIFO() throws {
        let daemon = try DaemonHarness()
        #expect(try daemon.cli("alarm", "add", "--in", "2s", "--label", "nap", "--fade-in", "0").status == 0)
        #expect(daemon.capturedBytes() == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let rangAt = Date()
        #expect(daemon.waitFor(2) { daemon.capturedBytes() > 44 })
        let status = try daemon.cli("status").stdout
        #expect(status.contains("sound: ringing: the built-in tone on \(daemon.captureDevice)\n"), "\(status)")
        let busy = try daemon.cli("sound", "test")
        #expect(busy.status == 1)
        #expect(busy.stderr == "reveille: alarm \"nap\" is ringing; test the sound after dismissing it\n")
        // A second and a half of the ring in the capture, then the dismissal.
        #expect(daemon.waitFor(5) { daemon.capturedBytes() > 44 + 96_000 * 3 / 2 })
        #expect(try daemon.dismissByMath().status == 0)
        let dismissedAt = Date()
        #expect(daemon.waitFor(1) { daemon.logText().contains("sound: stopped on") })
        #expect(daemon.captureClosed(), "the stream closes with the dismissal")
        let size = daemon.capturedBytes()
        let seconds = Double(size - 44) / 96_000  // 48 kHz, mono, 16-bit, after the WAV header
        let rang = dismissedAt.timeIntervalSince(rangAt)
        // Never more than the writer's lead beyond the ring; less only if a busy machine lagged.
        #expect(seconds > 0.5 && seconds < rang + 0.6, "captured \(seconds) s for a ring of \(rang) s")
        #expect(try daemon.cli("status").stdout.contains("sound: idle; devices: \(daemon.captureDevice), default\n"))
        #expect(daemon.logText().contains("sound: first frame on \(daemon.captureDevice)"))

        // An alarm with its own file rings that file, looped (the capture read, it goes: the next
        // ring's file plugin makes a new one).
        try FileManager.default.removeItem(atPath: daemon.soundCapture)
        let sound = daemon.root.appendingPathComponent("birds.flac").path
        try Recording.sine(440, seconds: 0.5, sampleRate: 44_100, channels: 2).write(
            to: sound, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16))
        let add = try daemon.cli("alarm", "add", "--in", "1s", "--sound", sound, "--fade-in", "0", "--volume", "100")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(3) { daemon.capturedBytes() > 44 + 4 * 44_100 * 1 })  // over a second: looped
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(2) { daemon.logText().contains("sound: stopped on") })
        #expect(daemon.captureClosed())
        let capture = try Recording(contentsOf: daemon.soundCapture)
        #expect(capture.sampleRate == 44_100 && capture.channels == 2)
        #expect(capture.seconds > 1)
        #expect(capture.dominant(among: [220, 440, 880], from: 0.6, to: 0.9) == 440)

        // A sound file swapped for a FIFO after it was added rings the tone, at once (the capture
        // read, it goes: the next ring's file plugin makes a new one).
        try FileManager.default.removeItem(atPath: daemon.soundCapture)
        let folder = daemon.root.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let swapped = folder.appendingPathComponent("birds.wav").path
        try Recording.sine(440, seconds: 0.5, sampleRate: 44_100, channels: 1).write(
            to: swapped, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let second = try daemon.cli("alarm", "add", "--in", "2s", "--sound", swapped, "--fade-in", "0")
        #expect(second.status == 0, "\(second.stderr)")
        try FileManager.default.removeItem(atPath: swapped)
        #expect(mkfifo(swapped, 0o644) == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let fifoRang = Date()
        #expect(daemon.waitFor(1.5) { daemon.capturedBytes() > 44 }, "nothing played within a second of the ring")
        #expect(Date().timeIntervalSince(fifoRang) < 1.5)
        #expect(daemon.logText().contains("not a regular file (a FIFO) (fstat); playing the built-in tone instead"))
        #expect(try daemon.dismissByMath().status == 0)
    }

    @Test func anAlarmSoundThatCannotBePlayedIsRefusedWhenAdded() throws {
        let daemon = SharedDaemon.unchanged
        let missing = daemon.root.appendingPathComponent("nowhere.ogg").path
        let add = try daemon.cli("alarm", "add", "7:00", "--sound", missing)
        #expect(add.status == 64)
        #expect(add.stderr == "reveille: --sound \(missing): no such file\n")
        let notSound = daemon.root.appendingPathComponent("notes.wav").path
        try "not a sound".write(toFile: notSound, atomically: true, encoding: .utf8)
        let garbled = try daemon.cli("alarm", "add", "7:00", "--sound", notSound)
        #expect(garbled.status == 64)
        #expect(garbled.stderr.hasPrefix("reveille: --sound: cannot play \(notSound): "))
        #expect(garbled.stderr.hasSuffix("; use a WAV, FLAC, Ogg or MP3 file\n"))
        let folder = try daemon.cli("alarm", "add", "7:00", "--sound", daemon.root.path)
        #expect(folder.stderr == "reveille: --sound \(daemon.root.path): not a file\n")
        let relative = try daemon.request(
            .alarmAdd(
                spec: {
                    var spec = AlarmSpec(); spec.time = LocalTime(secondsOfDay: 3600); spec.sound = "a.wav"; return spec
                }()))
        #expect(relative.error?.message == "--sound \"a.wav\": give the file's absolute path")
        #expect(try daemon.request(.alarmList).alarms?.isEmpty == true)
    }

    /// `sound test` plays for the seconds asked and says where; a file that does not decode plays
    /// the tone and says why; the devices `sound devices` lists are the ones it accepts.
    @Test func soundTestPlaysWhereItSaysOnTheListedDevices() throws {
        let daemon = try DaemonHarness()
        func finished() -> Int {
            daemon.logText().components(separatedBy: "sound: the built-in tone finished").count - 1
        }
        let test = try daemon.cli("sound", "test", "--seconds", "1")
        #expect(test.status == 0)
        #expect(test.stdout == "Playing the built-in tone on \(daemon.captureDevice) for 1 s.\n")
        #expect(daemon.waitFor(3) { finished() == 1 })
        #expect(daemon.capturedBytes() == 44 + 96_000)

        let broken = daemon.root.appendingPathComponent("broken.flac").path
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: broken))
        let unreadable = try daemon.cli("sound", "test", broken, "--seconds", "1")
        #expect(unreadable.status == 0)
        #expect(unreadable.stdout.hasPrefix("note: cannot read \(broken): "))
        #expect(unreadable.stdout.hasSuffix("\nPlaying the built-in tone on \(daemon.captureDevice) for 1 s.\n"))
        #expect(daemon.waitFor(3) { finished() == 2 })

        let devices = try #require(try daemon.request(.soundDevices).devices).map(\.name)
        #expect(devices.first == daemon.captureDevice, "the configured device comes first: \(devices)")
        #expect(devices.contains("null"))
        #expect(!devices.contains { $0.contains("|") || $0.hasPrefix("file") && $0 != daemon.captureDevice })
        let null = try daemon.cli("sound", "test", "--seconds", "1", "--device", "null")
        #expect(null.status == 0, "\(null.stderr)")
        #expect(null.stdout == "Playing the built-in tone on null for 1 s.\n")
        #expect(daemon.waitFor(3) { finished() == 3 })
        let configured = try daemon.cli("sound", "test", "--seconds", "1", "--device", daemon.captureDevice)
        #expect(configured.status == 0, "\(configured.stderr)")
    }

    @Test func soundTestOnADeviceNotListedIsRefusedWithTheFix() throws {
        let daemon = SharedDaemon.unchanged
        let test = try daemon.cli("sound", "test", "--device", "reveille_no_such_device", "--seconds", "1")
        #expect(test.status == 64)
        #expect(
            test.stderr
                == "reveille: --device \"reveille_no_such_device\": not a sound device of this clock; pick one that 'reveille sound devices' lists, or add it to [audio] devices in reveille.toml\n"
        )
        #expect(try daemon.answersStatus())
    }

    /// (A sound test while an alarm rings is refused in `anAlarmSoundsFromTheFireUntilTheDismissal`.)
    @Test func badSoundTestsAreRefusedWithTheFix() throws {
        let daemon = SharedDaemon.unchanged
        let zero = try daemon.cli("sound", "test", "--seconds", "0")
        #expect(zero.status == 64)
        #expect(zero.stderr == "reveille: --seconds 0: must be 1-300\n")
        let loud = try daemon.cli("sound", "test", "--volume", "101")
        #expect(loud.stderr == "reveille: --volume 101: must be 0-100\n")
        let relative = try daemon.request(.soundTest(file: "alarm.wav", device: nil, seconds: 1, volume: nil))
        #expect(relative.error?.code == .invalid)
        #expect(!daemon.logText().contains("sound test: alarm.wav"), "a refused test reached the player")
    }

    @Test func soundDevicesListsALSAsPCMs() throws {
        let daemon = SharedDaemon.unchanged
        let devices = try daemon.cli("sound", "devices")
        #expect(devices.status == 0)
        let rows = devices.stdout.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
        #expect(rows.first?.first == "DEVICE")
        #expect(rows.dropFirst().first?.first == daemon.captureDevice)
        #expect(rows.contains { $0.first == "default" })
        #expect(devices.stdout.contains { $0 == "|" } == false)
        #expect(rows.contains { $0.first == "null" && $0.last?.contains("Discard all samples") == true })
        #expect(try daemon.cli("sound", "devices", "--json").stdout.contains(#""name" : "null""#))
    }

    /// A settings file that does not load stops the start, naming the file, the line and the fix:
    /// the daemon refuses before it serves anything.
    @Test func aBrokenSettingsFileStopsTheStartWithItsLine() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-broken-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("etc/reveille")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[audio]\nvolume = 150\n".write(
            to: folder.appendingPathComponent("reveille.toml"), atomically: true, encoding: .utf8)
        let start = try runProcess(Binaries.daemon, ["--root", root.path])
        #expect(start.status == 1)
        #expect(
            start.stderr.contains(
                "/etc/reveille/reveille.toml:2: [audio] volume: 150 is out of range; use 0-100; fix the file, or move it away to run with the defaults"
            ), "\(start.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Paths(root: root.path).socket), "it never served")
    }
}
