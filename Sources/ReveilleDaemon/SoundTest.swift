import Foundation
import ReveilleCore
import ReveilleProtocol

extension Controller {
    /// `reveille sound test`: plays for `seconds` and answers once the first frame is written (or
    /// every device failed). Runs outside the controller's lock, which it takes only to check that
    /// no alarm is ringing: the answer can take a few seconds when devices fail.
    func soundTest(file: String?, device: String?, seconds: Int, volume: Int?) -> Response {
        guard (1...300).contains(seconds) else {
            return .failure(.invalid, "--seconds \(seconds): must be 1-300")
        }
        if let volume, !(0...100).contains(volume) {
            return .failure(.invalid, "--volume \(volume): must be 0-100")
        }
        if let file, !file.hasPrefix("/") {
            return .failure(
                .invalid, "sound file \"\(file)\": give an absolute path (the daemon does not share your folder)")
        }
        if let device, device.trimmingCharacters(in: .whitespaces).isEmpty {
            return .failure(
                .invalid, "--device \"\(device)\": name an ALSA device; list them with: reveille sound devices")
        }
        if let session = lock.withLock({ $0.session }) {
            return .failure(
                .busy,
                "alarm \"\(session.settings.label)\" is \(session.state.rawValue); test the sound after dismissing it")
        }
        let request = AudioRequest(
            sound: file, volume: volume ?? ring.defaultVolume, fadeInSeconds: 0, length: .seconds(Double(seconds)),
            device: device)
        logger.info(
            "sound test: \(file ?? "the configured sound") for \(seconds) s on \(device ?? "the configured devices")")
        let report = ring.audio.playAndReport(request)
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
