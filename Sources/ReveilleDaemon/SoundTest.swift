import Foundation
import ReveilleCore
import ReveilleProtocol

/// `reveille sound test` in two halves: the checks, on the loop, and the playing, which waits for a
/// device (seconds, when devices fail) and so runs on a thread of its own (see `ControlServer`).
enum SoundTest {
    /// Either the sound to play, or the answer when it cannot be played.
    enum Plan {
        case play(AudioRequest, seconds: Int)
        case answer(Response)
    }

    /// Waits until the first frame is written or every device failed once, then says how it went.
    static func play(_ request: AudioRequest, seconds: Int, on audio: any AudioOutput) -> Response {
        let report = audio.playAndReport(request)
        var response = Response(ok: report.device != nil)
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

extension Controller {
    /// Checks a `sound test` request: what to play, or why not.
    func planSoundTest(_ operation: Command, role: Role, refusal: () -> String) -> SoundTest.Plan {
        guard role >= operation.requiredRole else { return .answer(.failure(.forbidden, refusal())) }
        guard case .soundTest(let file, let device, let seconds, let volume) = operation else {
            return .answer(.failure(.internal, "not a sound test"))
        }
        guard (1...300).contains(seconds) else {
            return .answer(.failure(.invalid, "--seconds \(seconds): must be 1-300"))
        }
        if let volume, !(0...100).contains(volume) {
            return .answer(.failure(.invalid, "--volume \(volume): must be 0-100"))
        }
        // A device name is a program for alsa-lib (`file:'|cmd'` runs cmd): only a name from the
        // closed list of `sound devices` is ever opened.
        if let device, !ring.audio.availableDevices().contains(where: { $0.name == device }) {
            return .answer(
                .failure(
                    .invalid,
                    "--device \"\(Sanitized.line(device))\": not a sound device of this clock; pick one that 'reveille sound devices' lists, or add it to [audio] devices in reveille.toml"
                ))
        }
        if let file {
            do {
                // Only what everyone may read: a file that does not decode plays the tone, with a note.
                try checkPublic(file, option: "sound file")
            } catch let error as InputError {
                return .answer(.failure(.invalid, error.message))
            } catch {
                return .answer(.failure(.invalid, "sound file \(file): \(error)"))
            }
        }
        if let session = machine.session {
            return .answer(
                .failure(
                    .busy,
                    "alarm \"\(session.settings.label)\" is \(session.state.rawValue); test the sound after dismissing it"
                ))
        }
        logger.info(
            "sound test: \(file ?? "the configured sound") for \(seconds) s on \(device ?? "the configured devices")")
        soundTestUntil = Controller.monotonic() + Double(seconds)
        return .play(
            AudioRequest(
                sound: file, volume: volume ?? ring.defaultVolume, fadeInSeconds: 0, length: .seconds(Double(seconds)),
                device: device), seconds: seconds)
    }
}
