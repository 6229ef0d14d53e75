import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol

/// `reveille sound test` in two halves: the checks, on the loop, and the playing, which waits for a
/// device (seconds, when devices fail) and so runs on a thread of its own (see `ControlServer`).
enum SoundTest {
    /// Waits until the first frame is written or every device failed once, then says how it went.
    static func play(_ request: AudioRequest, seconds: Int, on audio: any AudioOutput) -> Response {
        let report = audio.playAndReport(request)
        var response = Response()
        response.playback = PlaybackInfo(
            device: report.device, source: report.source, seconds: seconds, problems: report.problems)
        if report.device == nil {
            response.error = ErrorReply(
                code: .unavailable,
                message:
                    "no device could play it: \(report.problems.joined(separator: "; ")); list devices with: reveille sound devices"
            )
        }
        return response
    }
}

/// `sound test|stop|devices` (docs/guide/devices.md, "Sound"). A test plays on a thread of its own until its first
/// frame is out, then its request is answered; `sound stop` ends it early, never an alarm.
final class SoundRequests: RequestHandler {
    private let controller: Controller
    private let audio: any AudioOutput
    private let sounds: SoundCheck
    private let defaultVolume: Int
    private let folders: [String]
    private let logger: Logger
    /// Until when (monotonic seconds) a `sound test` plays, for `sound stop`.
    private var testUntil = 0.0

    init(
        controller: Controller, audio: any AudioOutput, sounds: SoundCheck, defaultVolume: Int, folders: [String] = [],
        logger: Logger
    ) {
        self.folders = folders
        self.controller = controller
        self.audio = audio
        self.sounds = sounds
        self.defaultVolume = defaultVolume
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        switch request.command {
        case .soundDevices:
            var response = Response()
            response.devices = audio.availableDevices()
            return .answer(response)
        case .soundStop: return .answer(try stop())
        case .soundList:
            var response = Response()
            response.sounds = SoundLibrary.list(
                folders: folders, named: controller.view.alarmSounds)
            return .answer(response)
        case .soundTest(let file, let device, let seconds, let volume):
            let sound = try plan(file: file, device: device, seconds: seconds, volume: volume)
            guard let connection = request.connection, let offLoop = controller.offLoop else {
                return .answer(SoundTest.play(sound, seconds: seconds, on: audio))
            }
            let audio = self.audio
            offLoop.run("sound-test") {
                .reply(connection: connection, SoundTest.play(sound, seconds: seconds, on: audio))
            }
            return .parked
        default: throw misrouted(request.command)
        }
    }

    /// Checks a `sound test` request: what to play, or why not.
    private func plan(file: String?, device: String?, seconds: Int, volume: Int?) throws -> AudioRequest {
        // A device name is a program for alsa-lib (`file:'|cmd'` runs cmd): only a name from the
        // closed list of `sound devices` is ever opened.
        if let device, !audio.availableDevices().contains(where: { $0.name == device }) {
            throw InputError(
                "--device \"\(Sanitized.line(device))\": not a sound device of this clock; pick one that 'reveille sound devices' lists, or add it to [audio] devices in reveille.toml"
            )
        }
        // Only what everyone may read: a file that does not decode plays the tone, with a note.
        if let file { try sounds.checkPublic(file, option: "sound file") }
        if let refusal = controller.view.refusal(for: .soundTest) { throw Refusal(.busy, refusal.message) }
        logger.info(
            "sound test: \(file ?? "the configured sound") for \(seconds) s on \(device ?? "the configured devices")")
        testUntil = controller.clock.elapsed() + Double(seconds)
        return AudioRequest(
            sound: file, volume: volume ?? defaultVolume, fadeInSeconds: 0, length: .seconds(Double(seconds)),
            device: device)
    }

    /// `sound stop`: ends a sound test that still plays; never an alarm.
    private func stop() throws -> Response {
        if let refusal = controller.view.refusal(for: .soundStop) { throw Refusal(.refused, refusal.message) }
        guard controller.clock.elapsed() < testUntil else { return Response(message: "no sound test is playing") }
        audio.stop()
        testUntil = 0
        logger.info("sound test stopped")
        return Response(message: "stopped the sound test")
    }
}

/// The sound files an alarm may be given from a screen (`sound list`): the audio files everyone
/// may read in `folders` (three levels deep), and those alarms name already, at most `limit`.
/// Read when asked (a few hundred directory entries), nothing kept.
enum SoundLibrary {
    static let extensions: Set<String> = ["wav", "flac", "ogg", "oga", "mp3"]
    static let limit = 200

    static func list(folders: [String], named: [String]) -> [String] {
        var found = Set(named.filter { PublicFile.check($0) == .regular })
        for folder in folders { walk(folder, depth: 0, into: &found) }
        return Array(found.sorted().prefix(limit))
    }

    private static func walk(_ folder: String, depth: Int, into found: inout Set<String>) {
        guard depth < 3, found.count < limit,
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder)
        else { return }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = folder + "/" + name
            let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
            if extensions.contains(ext) {
                if PublicFile.check(path) == .regular { found.insert(path) }
            } else if !name.contains(".") || ext == "d" {
                walk(path, depth: depth + 1, into: &found)
            }
            if found.count >= limit { return }
        }
    }
}
