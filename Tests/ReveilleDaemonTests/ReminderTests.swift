import CSndFile
import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// Reminders end to end (issue 16, part 3): the real daemon on a shifted clock, chimes captured by
/// ALSA's file plugin, the real CLI.
@Suite(.serialized) struct ReminderDaemonTests {
    /// A chime sound: a sine of `frequency` Hz, half a second, in the test's root.
    func chime(_ daemon: DaemonHarness, _ frequency: Double) throws -> String {
        let path = daemon.root.appendingPathComponent("chime-\(Int(frequency)).wav").path
        try Recording.sine(frequency, seconds: 0.5, sampleRate: 44_100, channels: 2).write(
            to: path, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        chmod(path, 0o644)
        return path
    }

    /// The lines of the daemon's log that say a reminder chimed.
    func chimed(_ daemon: DaemonHarness) -> [String] {
        daemon.logText().split(separator: "\n").filter { $0.contains(") chimes (due ") }.map(String.init)
    }

    /// The frequency the last chime played, read back from the capture once the file plugin closed it.
    func capturedFrequency(_ daemon: DaemonHarness, among candidates: [Double]) throws -> Double {
        #expect(
            daemon.waitFor(3) { daemon.logText().components(separatedBy: "finished on").count > chimed(daemon).count })
        #expect(daemon.captureClosed())
        let capture = try Recording(contentsOf: daemon.soundCapture)
        return capture.dominant(among: candidates, from: 0.1, to: 0.4)
    }

    /// The chime alone, without its text spoken over it, for the tests that read its sound back.
    static let chimeOnly = "[voice]\nspeak_reminders = false\n"

    @Test func aReminderAndItsFollowUpChimeAtTheirInstantsOnceEvenAcrossARestart() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 15:59:57"), moreSettings: Self.chimeOnly)
        let sound = try chime(daemon, 880)
        let add = try daemon.cli(
            "reminder", "add", "check-in", "--days", "mon,wed,fri", "--at", "16:00", "--sound", sound, "--then", "2h",
            "how did it go?")
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("added reminder #1 check-in: 16:00 mon,wed,fri, then 2 h later \"how did it go?\""))
        #expect(add.stdout.contains("next chime 2026-11-23 16:00"))
        let next = try daemon.cli("next", "--days", "3")
        #expect(next.stdout.contains("2026-11-23  Mon  16:00  check-in        reminder #1"))
        #expect(next.stdout.contains("2026-11-23  Mon  18:00  how did it go?  reminder #1, 2 h after"))
        #expect(try daemon.cli("status").stdout.contains("next reminder: 2026-11-23 16:00 check-in"))
        #expect(daemon.capturedBytes() == 0)

        #expect(daemon.waitFor(15) { chimed(daemon).count == 1 })
        #expect(chimed(daemon).first?.contains("reminder \"check-in\" (reminder #1) chimes (due 16:00)") == true)
        #expect(chimed(daemon).first?.contains("late") == false)
        #expect(try capturedFrequency(daemon, among: [440, 880]) == 880)

        try daemon.advance(by: 2 * 3600 - 3)
        #expect(daemon.waitFor(15) { chimed(daemon).count == 2 })
        #expect(chimed(daemon).last?.contains("\"how did it go?\" (reminder #1, 2 h after) chimes (due 18:00)") == true)

        // A restart a minute later finds both kept: neither plays again.
        daemon.stop()
        try daemon.advance(by: 60)
        try daemon.start()
        #expect(try daemon.settle(), "the restarted machine has judged the minute")
        #expect(chimed(daemon).count == 2)
        let list = try daemon.cli("reminder", "list")
        #expect(list.stdout.contains("2026-11-25 16:00"), "\(list.stdout)")  // next: Wednesday

        // doctor counts it; its sound gone, doctor names it.
        let doctor = try daemon.cli("doctor", "--no-tone").stdout
        #expect(doctor.contains("1 set, 0 reminder calendars; next of those set: 2026-11-25 16:00"), "\(doctor)")
        unlink(sound)
        #expect(
            try daemon.cli("doctor", "--no-tone").stdout.contains(
                "reminder #1: its sound \(sound) cannot be read; it chimes with the built-in tone"))
    }

    /// With the voice on, a chime is followed by its text, spoken: real espeak-ng into ALSA's file
    /// plugin, energy in the speech band (where the chime, a 2 kHz sine, has none) after its start.
    /// The chime lasts 4 s, so that the words are mixed into its one stream even on a loaded
    /// machine: words still to say when a chime ends go on a stream of their own (a silent bed),
    /// and the file plugin's capture would then hold only that one.
    @Test func aChimeIsFollowedByItsTextSpokenThroughALSA() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 15:59:57"))
        let sound = daemon.root.appendingPathComponent("chime-2000.wav").path
        try Recording.sine(2000, seconds: 4, sampleRate: 44_100, channels: 1).write(
            to: sound, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        chmod(sound, 0o644)
        #expect(try daemon.cli("reminder", "add", "tea", "--at", "16:00", "--sound", sound).status == 0)
        #expect(daemon.waitFor(15) { chimed(daemon).count == 1 })
        #expect(
            daemon.waitFor(10) { daemon.logText().contains("voice: first frame of \"Reminder: tea.") },
            "\(daemon.logText())")
        // The file plugin completes the WAV when the stream closes: after the chime and the words.
        #expect(daemon.waitFor(15) { daemon.logText().contains("finished on") })
        #expect(daemon.captureClosed(15))
        let recording = try Recording(contentsOf: daemon.soundCapture)
        let window = 0.05
        let speechBand = [150.0, 250.0, 350.0, 450.0]
        func speech(at start: Double) -> Double {
            speechBand.map { recording.power(at: $0, from: start, to: start + window) }.reduce(0, +)
        }
        let windows = stride(from: 0.0, to: recording.seconds - window, by: window).map(speech)
        let loudest = windows.max() ?? 0
        #expect(loudest > max((windows.first ?? 0) * 20, 1e-6), "speech after the chime: \(windows)")
    }

    @Test func unlessSkipsTheChimeWhenItsCommandExitsZeroAndLetsItPlayOtherwise() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 15:59:55"))
        let flag = daemon.root.appendingPathComponent("form-sent").path
        let add = try daemon.cli(
            "reminder", "add", "send the form", "--at", "16:00", "--then", "1h", "last call", "--unless",
            "test -e \(flag)")
        #expect(add.status == 0, "\(add.stderr)")
        // No form yet: the command exits 1, the reminder plays.
        #expect(daemon.waitFor(15) { chimed(daemon).count == 1 })
        #expect(daemon.logText().contains("reminder \"send the form\": --unless test -e \(flag) exited 1"))
        // The form is sent: the follow-up is skipped, and says why.
        #expect(FileManager.default.createFile(atPath: flag, contents: nil))
        try daemon.advance(by: 3600 - 3)
        #expect(
            daemon.waitFor(15) { daemon.logText().contains("reminder \"last call\" (reminder #1, 1 h after) skipped") })
        #expect(try daemon.settle())
        #expect(chimed(daemon).count == 1)
    }

    // A reminder calendar's chimes, per-offset sounds, moves and cancellations are decided
    // in-process: InProcessScheduleTests.aReminderCalendarChimesBeforeEachEventAndFollowsMovesAndCancellations.

    @Test func badRemindersAreRefusedWithWhatToDo() throws {
        let daemon = SharedDaemon.unchanged  // Saturday 2026-11-21 10:00
        let noTime = try daemon.cli("reminder", "add", "x")
        #expect(noTime.status == 64)
        #expect(noTime.stderr.contains("--at"))
        let badThen = try daemon.cli("reminder", "add", "x", "--at", "10:00", "--then", "2h")
        #expect(badThen.status == 64)
        #expect(badThen.stderr.contains("--then takes two values"))
        let past = try daemon.cli("reminder", "add", "x", "--at", "09:00", "--date", "2026-11-21")
        #expect(past.status == 64)
        #expect(past.stderr.contains("has already passed"))
        let both = try daemon.cli("reminder", "add", "x", "--at", "10:00", "--days", "mon", "--date", "2026-12-01")
        #expect(both.status == 64)
        let missing = try daemon.cli("reminder", "rm", "9")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no reminder #9; 'reveille reminder list' shows the ids"))
        let noSound = try daemon.cli("reminder", "add", "x", "--at", "10:00", "--sound", "/nowhere.wav")
        #expect(noSound.status == 64)
        #expect(noSound.stderr.contains("--sound /nowhere.wav: no such file"))
        let badMinutes = try daemon.cli("calendar", "add", "c", "/x.ics", "--reminders", "--minutes", "soon")
        #expect(badMinutes.status == 64)
        #expect(try daemon.cli("reminder", "list").stdout.hasPrefix("no reminders"))
        #expect(daemon.answersStatus())
    }
}
