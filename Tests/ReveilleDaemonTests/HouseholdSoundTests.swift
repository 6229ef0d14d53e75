import CSndFile
import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// What a household member can do to the sound with nothing but the socket: name a device that is
/// really a program, or a sound file that is really a FIFO. Neither runs anything or keeps an
/// alarm silent. (docs/guide/rights.md, "Who may do what"; docs/ARCHITECTURE.md, "Strings from requests".)
@Suite struct HouseholdSoundTests {
    /// Debian's `nobody` user and `nogroup` group: a household member of the socket group.
    static let nobody = PeerRightsTests.nobody

    @Test func aDeviceNameThatRunsAProgramIsRefusedAndNothingRuns() throws {
        let daemon = SharedDaemon.unchanged
        let marker = daemon.root.appendingPathComponent("ran").path
        for device in [
            "file:FILE='|touch \(marker); cat >/dev/null',FORMAT=raw",
            "file:'|touch \(marker)',raw",
            "plug:'file:\"|touch \(marker)\"'",
            "pipe",
        ] {
            let test = try daemon.cli("sound", "test", "--seconds", "1", "--device", device)
            #expect(test.status == 64, "\(device): \(test.stderr)")
            #expect(
                test.stderr.contains("not a sound device of this clock; pick one that 'reveille sound devices' lists"))
        }
        #expect(try daemon.answersStatus())
        #expect(!FileManager.default.fileExists(atPath: marker), "a device name ran a program")
        #expect(!daemon.logText().contains("snd_pcm_open"), "a refused name reached alsa-lib")
    }

    @Test(.enabled(if: isRoot, "needs root: the client runs as another user (setpriv) to be a household member"))
    func aHouseholdMemberCannotNameAProgramEither() throws {
        let daemon = SharedDaemon.household
        let marker = daemon.root.appendingPathComponent("ran").path
        let test = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "sound", "test", "--seconds", "1", "--device",
            "file:FILE='|id > \(marker); cat >/dev/null',FORMAT=raw")
        #expect(test.status == 64, "\(test.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    // The listed devices are the ones accepted: SoundTests.soundTestPlaysWhereItSaysOnTheListedDevices.

    @Test func aFIFOAsASoundTestFileIsRefusedAndTheDaemonStaysFree() throws {
        let daemon = SharedDaemon.unchanged
        let fifo = daemon.root.appendingPathComponent("song-\(UUID().uuidString.prefix(8)).wav").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let test = try daemon.cli("sound", "test", fifo, "--seconds", "1")
        #expect(test.status == 64)
        #expect(test.stderr == "reveille: sound file \(fifo): not a file\n")
        // Nothing holds the FIFO open: the daemon answers at once.
        #expect(daemon.answersStatus())
        #expect(try daemon.request(.soundDevices).devices?.isEmpty == false)
    }

    // A sound file swapped for a FIFO after it was added: SoundTests.anAlarmWithItsOwnFileRingsThatFileAndTheToneIfItBecameAFIFO.

    @Test func aPrivateFileGetsTheSameAnswerWhetherItExistsOrNot() throws {
        let daemon = SharedDaemon.unchanged
        let closed = daemon.root.appendingPathComponent("closed")
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true)
        chmod(closed.path, 0o700)
        let there = closed.appendingPathComponent("there.wav").path
        try Recording.sine(440, seconds: 0.2, sampleRate: 44_100, channels: 1).write(
            to: there, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let missing = closed.appendingPathComponent("missing.wav").path
        let answers = try [there, missing].map { path in
            try daemon.cli("alarm", "add", "7:00", "--sound", path).stderr.replacingOccurrences(of: path, with: "FILE")
        }
        #expect(answers[0] == answers[1])
        #expect(answers[0].contains("not a file everyone may read"))
        let secret = daemon.root.appendingPathComponent("secret.wav").path
        try Recording.sine(440, seconds: 0.2, sampleRate: 44_100, channels: 1).write(
            to: secret, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        chmod(secret, 0o600)
        let test = try daemon.cli("sound", "test", secret, "--seconds", "1")
        #expect(test.status == 64)
        #expect(test.stderr.contains("not a file everyone may read"))
    }
}

/// Text that reaches terminals and the log (docs/guide/recovery.md, "When the state is damaged": every log line
/// escapes control characters).
@Suite struct OutputHygieneTests {
    @Test func aReminderWithAnEscapeSequenceIsRefusedAndLogLinesCannotBeForged() throws {
        let daemon = SharedDaemon.unchanged
        let escape = try daemon.cli("reminder", "add", "bins\u{1B}[2J", "--at", "19:00", "--days", "tue")
        #expect(escape.status == 64, "\(escape)")
        #expect(escape.stderr.contains("control characters are not allowed"))
        // A name that reaches the log with a line break stays on its line.
        _ = try daemon.cli("calendar", "rm", "x\nFAKE critical reveilled: forged")
        #expect(daemon.waitFor(2) { daemon.logText().contains("x\\nFAKE critical reveilled: forged") })
        #expect(!daemon.logText().split(separator: "\n").contains { $0.hasPrefix("FAKE") })
    }
}
