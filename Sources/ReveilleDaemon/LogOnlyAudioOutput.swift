import Logging
import ReveilleCore
import Synchronization

/// An audio output that plays nothing and logs what it would do. It stands in until the ALSA
/// output exists; the ring session never depends on audio succeeding, so rings, snoozes and
/// dismissals work the same with it.
final class LogOnlyAudioOutput: AudioOutput {
    private let logger: Logger
    private let state = Mutex<String>("idle")

    init(logger: Logger) {
        self.logger = logger
    }

    func play(_ request: AudioRequest) {
        let what = request.sound ?? "the built-in tone"
        state.withLock { $0 = "ringing (log only: \(what) at volume \(request.volume))" }
        logger.info(
            "sound: start \(what), volume \(request.volume), fade-in \(request.fadeInSeconds) s (log only: no audio output yet)"
        )
    }

    func setAttenuated(_ attenuated: Bool) {
        logger.info("sound: \(attenuated ? "lowered while the sleeper answers" : "back to full volume")")
    }

    func stop() {
        state.withLock { $0 = "idle" }
        logger.info("sound: stop")
    }

    var statusLine: String { "log only, no audio output yet; " + state.withLock { $0 } }
}
