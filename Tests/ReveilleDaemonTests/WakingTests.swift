import CTestSupport
import Foundation
import ReveilleCore
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// Waking up, enforced, through the real daemon: its sound in ALSA's file plugin, its keys from a
/// FIFO, its clock stepped through the test clock's offset file.
@Suite(.serialized) struct WakingEndToEndTests {
    /// Rings an alarm with `arguments` and dismisses it by math through the CLI.
    func ringAndDismiss(_ daemon: DaemonHarness, _ arguments: String...) throws {
        let add = try daemon.cli(["alarm", "add", "--in", "1s", "--fade-in", "0"] + arguments)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.dismissByMath().status == 0)
        #expect(try daemon.waitFor { try daemon.session() == nil })
    }

    /// The check asks after its minute: the prompt's tone is captured, `status` says so, and
    /// unanswered the alarm rings again as a new session; history and stats keep it. Then a
    /// sunrise before the next alarm: its hook, and its quiet sound.
    @Test func anUnansweredWakeUpCheckRingsAgainAndASunriseBeginsQuietly() throws {
        // Without the voice, the capture holds the prompt's tone alone (the keypad test hears the words).
        let daemon = try DaemonHarness(moreSettings: "[voice]\nenabled = false\n")
        try ringAndDismiss(daemon, "--wake-check", "1m", "--label", "up")
        let waiting = try #require(try daemon.request(.status).status?.wakeCheck)
        #expect(waiting.state == "waiting")
        let early = try daemon.cli("awake")
        #expect(early.status == 1)
        #expect(early.stderr.contains("the wake-up check has not asked yet"), "\(early.stderr)")
        #expect(daemon.waitFor(3) { daemon.logText().contains("sound: stopped on") })
        try daemon.advance(by: 61)
        #expect(daemon.waitFor { daemon.logText().contains("wake-up check of alarm #1 up: are you up?") })
        let status = try daemon.cli("status").stdout
        #expect(status.contains("ARE YOU UP? The wake-up check of alarm #1 up waits until"), "\(status)")
        // The prompt: the built-in tone once, into the capture (the ring's own capture was closed).
        #expect(daemon.waitFor(4) { daemon.logText().contains("sound: the built-in tone finished on") })
        #expect(daemon.captureClosed())
        let prompt = try Recording(contentsOf: daemon.soundCapture)
        #expect(prompt.dominant(among: [440, 880, 1320], from: 0, to: 0.8) == 880)
        #expect(prompt.seconds < 2, "the prompt is one cycle of the tone, not a ring: \(prompt.seconds) s")
        try daemon.advance(by: 60)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.session()?.id == 2)
        #expect(daemon.logText().contains("wake-up check of alarm #1 up failed: no answer in 1m; it rings again"))
        let history = try #require(try daemon.request(.history(days: 1)).history)
        #expect(history.map(\.wakeCheck) == ["failed", nil])
        #expect(try daemon.dismissByMath().status == 0)
        let stats = try #require(try daemon.request(.stats(days: 1)).stats)
        #expect(stats.wakeChecksFailed == 1)
        #expect(stats.wakeChecksPassed == 0)
        #expect(try daemon.cli("stats").stdout.contains("wake-up checks: 0 passed, 1 failed"))

        // `--lead 1m --lead-sound`: the `lead` hook and watchers hear of the sunrise, and the sound
        // begins quietly (a quarter of the volume) before the ring, which then rings as usual.
        #expect(daemon.captureClosed())
        try FileManager.default.removeItem(atPath: daemon.soundCapture)  // read: the next sound makes a new one
        let hooks = daemon.root.appendingPathComponent("hooks.out").path
        let folder = daemon.root.appendingPathComponent("etc/reveille/hooks.d")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hook = folder.appendingPathComponent("lamp").path
        try "#!/bin/sh\necho \"$REVEILLE_EVENT $REVEILLE_LEAD_SECONDS\" >> \(hooks)\n".write(
            toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        let add = try daemon.cli(
            "alarm", "add", "--in", "2m", "--lead", "1m", "--lead-sound", "--fade-in", "0", "--volume", "100",
            "--label", "sun")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.cli("alarm", "show", "2").stdout.contains("the sound begins quietly in its last minute"))
        try daemon.advance(by: 61)
        #expect(daemon.waitFor { daemon.logText().contains("sunrise for alarm #2 sun begins: it rings at") })
        #expect(daemon.waitFor(5) { ((try? String(contentsOfFile: hooks, encoding: .utf8)) ?? "").contains("lead 6") })
        #expect(try daemon.request(.status).status?.sunrise?.label == "sun")
        #expect(try daemon.cli("status").stdout.contains("sunrise: alarm #2 sun rings at"))
        // Three seconds of the quiet sound, read from the capture as it is written.
        #expect(daemon.waitFor(6) { daemon.capturedBytes() > 44 + 96_000 * 3 })
        let data = try Data(contentsOf: URL(fileURLWithPath: daemon.soundCapture))
        let samples = data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let quiet = (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
        try daemon.advance(by: 60)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(5) { daemon.capturedBytes() > 44 + 96_000 * 2 })
        func stops() -> Int { daemon.logText().components(separatedBy: "sound: stopped on").count }
        let stopped = stops()
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(3) { stops() > stopped })
        #expect(daemon.captureClosed())
        let ring = try Recording(contentsOf: daemon.soundCapture).rms(from: 0, to: 1.2)
        #expect(quiet > 0, "the lead sound is heard")
        #expect(quiet * 20 < ring, "the lead sound is quiet: rms \(quiet) against the ring's \(ring)")
    }

    /// Unanswered for its `--escalate-after`, the ring rises to full volume (the captured level
    /// after the step is many times the level before) and goes on every backup device too, at full
    /// volume, until it stops.
    @Test func atEscalationTheSoundRisesAndRingsOnTheBackupDevicesToo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backup-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let backup = folder.appendingPathComponent("backup.wav").path
        // Right after the harness's `devices` line, inside its [audio] table.
        let daemon = try DaemonHarness(
            moreSettings: "backup_devices = [\"file:'\(backup)',wav\"]\n[voice]\nenabled = false\n")
        let add = try daemon.cli(
            "alarm", "add", "--in", "1s", "--fade-in", "0", "--volume", "40", "--escalate-after", "1m")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(5) { daemon.capturedBytes() > 44 + 96_000 * 2 })
        #expect(!FileManager.default.fileExists(atPath: backup), "nothing on the backup before escalation")
        let before = daemon.capturedBytes()
        try daemon.advance(by: 60)
        #expect(daemon.waitFor { daemon.logText().contains("sound: rising to full volume (unanswered)") })
        #expect(
            daemon.waitFor { daemon.logText().contains("sound: ringing on backup device file:'\(backup)',wav too") })
        #expect(try daemon.session()?.escalated == true)
        #expect(try daemon.cli("status").stdout.contains("unanswered: ringing at full volume"))
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: backup))?[.size] as? Int) ?? 0 }
        #expect(daemon.waitFor(6) { daemon.capturedBytes() > before + 96_000 * 4 && size() > 44 + 96_000 * 3 })
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(3) { daemon.logText().contains("sound: backup device file:'\(backup)',wav stopped") })
        #expect(daemon.waitFor(3) { daemon.logText().contains("sound: stopped on") })
        #expect(daemon.captureClosed())
        #expect(daemon.wavClosed(backup), "the backup stops with the ring: its stream is closed")
        let capture = try Recording(contentsOf: daemon.soundCapture)
        let quiet = capture.rms(from: 0, to: 1.2)
        let loud = capture.rms(from: capture.seconds - 1.3, to: capture.seconds - 0.1)
        // Volume 40 is a gain of 0.064; full volume 1: about 15 times (24 dB) louder.
        #expect(quiet > 0)
        #expect(loud > quiet * 10, "rms \(quiet) before, \(loud) after")
        let backupLoud = try Recording(contentsOf: backup).rms(from: 2.0, to: 3.2)  // past its 2 s rise
        #expect(backupLoud > quiet * 10, "rms \(backupLoud) on the backup against \(quiet) before escalation")
    }

    /// With `--volume-ceiling 60`, the escalation rises to 60 and no further, on the alarm's
    /// device and on the backup device alike: about 3.4 times volume 40's level (the cubic curve:
    /// (60/40)³), not the 15 times of full volume.
    @Test func aVolumeCeilingHoldsTheEscalationAndTheBackupDevice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ceiling-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let backup = folder.appendingPathComponent("backup.wav").path
        let daemon = try DaemonHarness(
            moreSettings: "backup_devices = [\"file:'\(backup)',wav\"]\n[voice]\nenabled = false\n")
        let add = try daemon.cli(
            "alarm", "add", "--in", "1s", "--fade-in", "0", "--volume", "40", "--volume-ceiling", "60",
            "--escalate-after", "1m")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try daemon.cli("alarm", "show", "1").stdout.contains("40, rising over 0 s; never above 60"))
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(5) { daemon.capturedBytes() > 44 + 96_000 * 2 })
        let before = daemon.capturedBytes()
        try daemon.advance(by: 60)
        #expect(
            daemon.waitFor {
                daemon.logText().contains("sound: ringing on backup device file:'\(backup)',wav too, at its ceiling, volume 60")
            })
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: backup))?[.size] as? Int) ?? 0 }
        #expect(daemon.waitFor(6) { daemon.capturedBytes() > before + 96_000 * 4 && size() > 44 + 96_000 * 3 })
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(3) { daemon.captureClosed() && daemon.wavClosed(backup) })
        let capture = try Recording(contentsOf: daemon.soundCapture)
        let quiet = capture.rms(from: 0, to: 1.2)
        let loud = capture.rms(from: capture.seconds - 1.3, to: capture.seconds - 0.1)
        #expect(quiet > 0)
        #expect(loud > quiet * 2.5 && loud < quiet * 4.5, "rms \(quiet) before, \(loud) after: not held at 60")
        let backupLoud = try Recording(contentsOf: backup).rms(from: 2.0, to: 3.2)
        #expect(backupLoud > quiet * 2.5 && backupLoud < quiet * 4.5, "the backup at rms \(backupLoud) against \(quiet)")
    }

}

/// A sound device that stops taking frames while an alarm rings: ALSA's file plugin writing into
/// a FIFO whose reader stops reading (the write blocks for good, as a wedged USB card does).
@Suite(.serialized) struct StalledDeviceTests {
    /// Opens `fifo` for reading, reads `bytes`, then holds it open without reading.
    final class StallingReader: @unchecked Sendable {
        private(set) var fd: Int32 = -1
        init(_ fifo: String, bytes: Int) {
            Thread.detachNewThread { [self] in
                fd = open(fifo, O_RDONLY)
                var buffer = [UInt8](repeating: 0, count: 4096)
                var got = 0
                while got < bytes {
                    let count = read(fd, &buffer, min(buffer.count, bytes - got))
                    if count <= 0 { break }
                    got += count
                }
            }
        }
        deinit { if fd >= 0 { close(fd) } }
    }

    @Test func aDeviceThatStopsIsReplacedByTheNextAndTheSoundGoesOn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stall-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fifo = folder.appendingPathComponent("card").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let backup = folder.appendingPathComponent("backup.wav").path
        let reader = StallingReader(fifo, bytes: 96_000)  // one second, then nothing
        let daemon = try DaemonHarness(
            settings: """
                [audio]
                devices = ["file:'\(fifo)',raw"]
                backup_devices = ["file:'\(backup)',wav"]
                [voice]
                enabled = false

                """)
        #expect(try daemon.cli("alarm", "add", "--in", "1s", "--fade-in", "0").status == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(10) { daemon.logText().contains("sound: first frame on file:'\(backup)',wav") })
        let log = daemon.logText()
        #expect(log.contains("sound: first frame on file:'\(fifo)',raw"))
        // The file plugin retries its blocked write even when interrupted: the writer is left
        // behind in it, and a new one goes on with the next device.
        #expect(
            log.contains(
                "sound: file:'\(fifo)',raw is stuck in a call that does not return; it is left behind and the sound goes on on the next device"
            ), "\(log)")
        // The sound goes on: the backup's capture grows.
        let size = (try? FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int) ?? 0
        #expect(
            daemon.waitFor(3) {
                ((try? FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int) ?? 0) > size + 48_000
            })
        #expect(try daemon.cli("status").stdout.contains("sound: ringing: the built-in tone on file:'\(backup)',wav"))
        #expect(try daemon.dismissByMath().status == 0)
        withExtendedLifetime(reader) {}
    }

    /// Every device fails while an alarm rings (this machine has no sound card, so `default` fails
    /// too): status, the watch stream and the hooks say so loudly.
    @Test func whenNoDeviceWorksTheAlarmIsSaidToBeSilent() throws {
        let hooks = FileManager.default.temporaryDirectory.appendingPathComponent(
            "silent-\(UUID().uuidString.prefix(8))")
        let daemon = try DaemonHarness(
            settings: """
                [audio]
                devices = ["nowhere_at_all"]
                retry_seconds = 1
                [voice]
                enabled = false

                """)
        try FileManager.default.createDirectory(
            at: daemon.root.appendingPathComponent("etc/reveille/hooks.d"), withIntermediateDirectories: true)
        let hook = daemon.root.appendingPathComponent("etc/reveille/hooks.d/record").path
        try "#!/bin/sh\necho \"$REVEILLE_EVENT\" >> \(hooks.path)\n".write(
            toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        #expect(try daemon.cli("alarm", "add", "--in", "1s").status == 0)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(daemon.waitFor(10) { daemon.logText().contains("THE ALARM IS SILENT: no sound device works") })
        #expect(try daemon.request(.status).status?.silent == true)
        #expect(try daemon.cli("status").stdout.hasPrefix("THE ALARM IS SILENT: no sound device works"))
        #expect(daemon.waitFor(5) { ((try? String(contentsOf: hooks, encoding: .utf8)) ?? "").contains("silent\n") })
        #expect(try daemon.dismissByMath().status == 0)
    }
}
