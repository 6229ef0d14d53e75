import CSndFile
import Foundation
import ReveilleCore
import ReveilleSystem
import ReveilleTestSupport
import Testing

@testable import ReveilleAudio

/// Real alsa-lib writing into ALSA's `file` plugin: what would have reached the speaker is read
/// back from the WAV file it writes.
@Suite(.serialized) struct ALSAOutputTests {
    let scratch: Scratch
    let log = LogRecorder()

    init() throws { scratch = try Scratch() }

    private func output(devices: [String], sound: String? = nil, mixer: MixerSetting? = nil) -> ALSAOutput {
        ALSAOutput(
            configuration: AudioConfiguration(devices: devices, defaultSound: sound, mixer: mixer, retrySeconds: 1),
            logger: log.logger())
    }

    private func waitIdle(_ output: ALSAOutput) -> Bool { waitFor(15) { output.statusLine.hasPrefix("idle") } }

    @Test func theBuiltInToneIsCapturedWithItsFrequency() throws {
        let output = output(devices: [scratch.captureDevice("tone.wav")])
        let report = output.playAndReport(
            AudioRequest(sound: nil, volume: 100, fadeInSeconds: 0, length: .seconds(1.2)))
        #expect(report.device == scratch.captureDevice("tone.wav"))
        #expect(report.source == "the built-in tone")
        #expect(report.problems.isEmpty)
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("tone.wav"))
        #expect(capture.sampleRate == 48_000)
        #expect(capture.frames == 57_600)
        #expect(capture.dominant(among: [440, 660, 880, 1000, 1760], from: 0, to: 0.1) == 880)
        #expect(capture.peak(from: 0.01, to: 0.09) > 25_000)
        #expect(capture.peak(from: 0.85, to: 1.15) == 0)
    }

    @Test func loudnessRisesOverTheFadeIn() throws {
        let output = output(devices: [scratch.captureDevice("fade.wav")])
        _ = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 2, length: .seconds(3.6)))
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("fade.wav"))
        // The middle of each beep of the first two cycles, then the third (after the fade).
        let peaks = (0..<12).map { index -> Double in
            let start = Double(index / 4) * 1.2 + Double(index % 4) * 0.2
            return capture.peak(from: start + 0.04, to: start + 0.06)
        }
        for index in 1..<8 { #expect(peaks[index] > peaks[index - 1], "beep \(index) not louder: \(peaks)") }
        let full = 0.9 * 32_767 * Double(Loudness.gain(forVolume: 80))
        for index in 8..<12 { #expect(abs(peaks[index] - full) < 0.02 * full, "\(peaks)") }
        #expect(peaks[0] < 0.01 * full)
    }

    @Test func aFileLoopsPastItsLength() throws {
        let sound = scratch.file("half-second.flac")
        try Recording.sine(440, seconds: 0.5, sampleRate: 44_100, channels: 2).write(
            to: sound, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16))
        let output = output(devices: [scratch.captureDevice("loop.wav")])
        let report = output.playAndReport(
            AudioRequest(sound: sound, volume: 100, fadeInSeconds: 0, length: .seconds(1.6)))
        #expect(report.source == sound)
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("loop.wav"))
        #expect(capture.sampleRate == 44_100)
        #expect(capture.channels == 2)
        #expect(abs(capture.seconds - 1.6) < 0.001)
        for start in [0.1, 0.6, 1.1, 1.5] {
            #expect(capture.dominant(among: [220, 440, 880], from: start, to: start + 0.09) == 440)
            #expect(capture.peak(from: start, to: start + 0.05) > 15_000)
        }
    }

    @Test func oggWavAndMP3FilesPlayToo() throws {
        // MP3 through libsndfile 1.1+ (mpg123 to read, LAME to write the test file), as in Debian 12.
        for (name, format) in [
            ("a.ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)), ("a.wav", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)),
            ("a.mp3", Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)),
        ] {
            let sound = scratch.file(name)
            try Recording.sine(660, seconds: 0.4, sampleRate: 48_000, channels: 1).write(to: sound, format: format)
            let output = output(devices: [scratch.captureDevice(name + ".capture.wav")])
            let report = output.playAndReport(AudioRequest(sound: sound, volume: 100, fadeInSeconds: 0, length: .once))
            #expect(report.source == sound, "\(name): \(report)")
            #expect(waitIdle(output))
            let capture = try Recording(contentsOf: scratch.file(name + ".capture.wav"))
            #expect(capture.dominant(among: [440, 660, 880], from: 0.1, to: 0.3) == 660, "\(name)")
        }
    }

    @Test func aChimePlaysOnceWithoutLooping() throws {
        let sound = scratch.file("chime.wav")
        try Recording.sine(880, seconds: 0.3, sampleRate: 48_000, channels: 1).write(
            to: sound, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let output = output(devices: [scratch.captureDevice("chime-capture.wav")])
        _ = output.playAndReport(AudioRequest(sound: sound, volume: 100, fadeInSeconds: 0, length: .once))
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("chime-capture.wav"))
        #expect(capture.frames == 14_400)
    }

    @Test func theToneAsAChimePlaysOneCycle() throws {
        let output = output(devices: [scratch.captureDevice("tone-chime.wav")])
        _ = output.playAndReport(AudioRequest(sound: nil, volume: 100, fadeInSeconds: 0, length: .once))
        #expect(waitIdle(output))
        #expect(try Recording(contentsOf: scratch.file("tone-chime.wav")).frames == 57_600)
    }

    @Test func anUnreadableFilePlaysTheBuiltInTone() throws {
        let sound = scratch.file("broken.wav")
        try Data("not a sound".utf8).write(to: URL(fileURLWithPath: sound))
        let output = output(devices: [scratch.captureDevice("fallback.wav")])
        let report = output.playAndReport(
            AudioRequest(sound: sound, volume: 100, fadeInSeconds: 0, length: .seconds(0.5)))
        #expect(report.source == "the built-in tone")
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.contains(sound) == true)
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("fallback.wav"))
        #expect(capture.dominant(among: [440, 880], from: 0, to: 0.1) == 880)
        #expect(log.contains("cannot read \(sound)"))
    }

    @Test func aMissingFilePlaysTheBuiltInToneAndTheConfiguredSoundIsTheDefault() throws {
        let output = output(devices: [scratch.captureDevice("missing.wav")], sound: scratch.file("nowhere.flac"))
        let report = output.playAndReport(
            AudioRequest(sound: nil, volume: 100, fadeInSeconds: 0, length: .seconds(0.3)))
        #expect(report.source == "the built-in tone")
        #expect(report.problems.first?.contains("nowhere.flac") == true)
        #expect(report.device != nil)
    }

    /// A 300 Hz "voice" at espeak-ng's rate, as the voice thread hands it over.
    private func words(seconds: Double) -> [Int16] {
        Recording.sine(300, seconds: seconds, sampleRate: 22_050, channels: 1).samples
    }

    @Test func speechWithNothingPlayingRidesOnSilenceAndThenStops() throws {
        let output = output(devices: [scratch.captureDevice("speech.wav")])
        output.speak(words(seconds: 0.5), sampleRate: 22_050, text: "hello", askedAt: Monotonic.seconds())
        #expect(waitFor(5) { log.contains("voice: first frame of \"hello\" written") })
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("speech.wav"))
        #expect(capture.sampleRate == 22_050)
        #expect(abs(capture.seconds - 0.8) < 0.05, "the words and 0.3 s of silence after: \(capture.seconds) s")
        #expect(capture.dominant(among: [200, 300, 440, 880], from: 0.1, to: 0.4) == 300)
        #expect(capture.peak(from: 0.6, to: 0.8) == 0)
    }

    @Test func speechNoDeviceTakesIsDroppedNotRetriedInALoop() throws {
        let output = output(devices: ["reveille_no_such_device"])
        output.speak(words(seconds: 0.5), sampleRate: 22_050, text: "hello", askedAt: Monotonic.seconds())
        Thread.sleep(forTimeInterval: 1)
        let rounds = log.messages.filter { $0.contains("no device could play") }.count
        #expect(rounds == 1, "one round of the devices, then the words are dropped: \(rounds)")
        #expect(output.statusLine.hasPrefix("idle"))
        #expect(!output.isSpeaking)
    }

    @Test func aMissingFirstDeviceFallsBackToTheNext() throws {
        let output = output(devices: ["reveille_no_such_device", scratch.captureDevice("second.wav")])
        let report = output.playAndReport(
            AudioRequest(sound: nil, volume: 100, fadeInSeconds: 0, length: .seconds(0.5)))
        #expect(report.device == scratch.captureDevice("second.wav"))
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.contains("reveille_no_such_device") == true)
        #expect(log.contains("cannot open reveille_no_such_device"))
        #expect(waitIdle(output))
        #expect(try Recording(contentsOf: scratch.file("second.wav")).frames == 24_000)
    }

    @Test func noWorkingDeviceIsReportedAndRetriedUntilOneAppears() throws {
        ALSALog.route(to: log.logger())
        defer { ALSALog.route(to: LogRecorder().logger()) }
        // A PCM named in an ALSA configuration file that does not define it yet: like a USB
        // speaker not plugged in. Defining it later is the speaker arriving.
        let configuration = try ALSATestConfiguration.make()
        try configuration.define("")
        let output = output(devices: ["reveille_speaker"])
        let report = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        #expect(report.device == nil)
        #expect(report.problems.count == 2)  // the speaker, then `default` (no sound card here)
        #expect(report.problems.first?.contains("reveille_speaker") == true)
        #expect(output.statusLine.contains("retrying every 1 s"))
        try configuration.define(
            "pcm.reveille_speaker { type file; slave.pcm null; file \"\(scratch.file("speaker.wav"))\"; format wav }")
        #expect(waitFor(5) { output.statusLine.hasPrefix("ringing:") })
        #expect(output.statusLine.contains("reveille_speaker"))
        // The WAV header gets its length at close; until then, the file's size tells.
        #expect(
            waitFor(2) {
                ((try? FileManager.default.attributesOfItem(atPath: scratch.file("speaker.wav")))?[.size] as? Int ?? 0)
                    > 44
            })
        output.stop()
        #expect(waitIdle(output))
        #expect(log.contains("no audio device works"))
        #expect(log.contains("alsa-lib"))  // alsa-lib's own message reached the log
        #expect(try Recording(contentsOf: scratch.file("speaker.wav")).frames > 0)
    }

    @Test func aDeviceFailingMidRingHandsOverToTheNext() throws {
        // The file plugin writing into /dev/full takes the first frames, then fails with EIO when
        // it flushes them: a speaker unplugged while ringing.
        let failing = "file:'/dev/full',raw"
        let output = output(devices: [failing, scratch.captureDevice("next.wav")])
        let report = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        #expect(report.device == failing)
        #expect(
            waitFor(3) { output.statusLine == "ringing: the built-in tone on \(scratch.captureDevice("next.wav"))" })
        #expect(
            log.contains(
                "sound: \(failing): Input/output error (snd_pcm_writei) while playing; trying \(scratch.captureDevice("next.wav"))"
            ))
        Thread.sleep(forTimeInterval: 0.5)
        output.stop()
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("next.wav"))
        #expect(capture.seconds > 0.4)
        #expect(capture.dominant(among: [440, 880], from: 0, to: capture.seconds) == 880)
    }

    @Test func stopIsPromptAndDropsTheRest() throws {
        let output = output(devices: [scratch.captureDevice("stop.wav")])
        let started = Date()
        _ = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        Thread.sleep(forTimeInterval: 1.0)
        #expect(output.statusLine.hasPrefix("ringing: the built-in tone"))
        output.stop()
        let stopped = Date()
        #expect(waitFor(1) { output.statusLine.hasPrefix("idle") })
        let ringSeconds = stopped.timeIntervalSince(started)
        let size = try FileManager.default.attributesOfItem(atPath: scratch.file("stop.wav"))[.size] as! Int
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try FileManager.default.attributesOfItem(atPath: scratch.file("stop.wav"))[.size] as! Int == size)
        let capture = try Recording(contentsOf: scratch.file("stop.wav"))
        // Paced like a real device: no more than the writer's lead (0.3 s) beyond the time it rang.
        #expect(capture.seconds > 0.5)  // it played (a busy machine may lag the wall clock)
        #expect(capture.seconds < ringSeconds + 0.35)
        #expect(log.contains("sound: stopped on"))
    }

    @Test func attenuationLowersTheSoundWhileAnAnswerIsTyped() throws {
        let output = output(devices: [scratch.captureDevice("lower.wav")])
        _ = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        Thread.sleep(forTimeInterval: 1.3)
        output.setAttenuated(true)
        Thread.sleep(forTimeInterval: 2.0)
        output.stop()
        #expect(waitIdle(output))
        let capture = try Recording(contentsOf: scratch.file("lower.wav"))
        let full = capture.peak(from: 0.02, to: 0.08)
        let lowered = capture.peak(from: capture.seconds - 1.2, to: capture.seconds)
        #expect(full > 0)
        let expected = Double(Loudness.gain(forVolume: 40) / Loudness.gain(forVolume: 80))
        #expect(abs(lowered / full - expected) < 0.02, "full \(full), lowered \(lowered)")
    }

    @Test func aNewRequestReplacesThePlayingOne() throws {
        let output = output(devices: [scratch.captureDevice("first.wav")])
        _ = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        let report = output.playAndReport(
            AudioRequest(
                sound: nil, volume: 80, fadeInSeconds: 0, length: .seconds(0.2),
                device: scratch.captureDevice("second.wav")))
        #expect(report.device == scratch.captureDevice("second.wav"))
        #expect(waitIdle(output))
    }

    @Test func aMixerThatCannotBeSetIsLoggedAndTheAlarmStillRings() throws {
        let output = output(
            devices: [scratch.captureDevice("mixer.wav")],
            mixer: MixerSetting(card: "hw:7", control: "PCM", level: 100))
        let report = output.playAndReport(AudioRequest(sound: nil, volume: 80, fadeInSeconds: 0))
        #expect(report.device != nil)
        #expect(log.contains("cannot set the mixer: hw:7"))
        output.stop()
        #expect(waitIdle(output))
    }

    @Test func devicesAreListedLikeAplay() {
        let names = DeviceList.playbackDevices().map(\.name)
        #expect(names.contains("null"))
    }
}
