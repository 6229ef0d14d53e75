import CEspeak
import Dispatch
import FoundationEssentials
import Glibc
import ReveilleSystem
import Logging
import ReveilleCore
import Synchronization

/// The voice: libespeak-ng (opened at the first sentence) synthesizing into a buffer on a thread of its own (synthesis takes tens
/// of milliseconds, which the event loop must not wait for), mixed by `ALSAOutput` over whatever
/// plays. The data is loaded at the first sentence, so a clock that never speaks does not pay
/// for it in memory. Without espeak-ng's data, or with an unknown voice, it stays silent and
/// says why in the log and in `statusLine`.
public final class EspeakVoice: Voice, Sendable {
    public let voice: String
    public let wordsPerMinute: Int
    private let output: ALSAOutput
    private let logger: Logger
    private let queue = Mutex<[(text: String, askedAt: Double)]>([])
    private let wakeUp = DispatchSemaphore(value: 0)
    private let state: Mutex<String>

    public init(voice: String, wordsPerMinute: Int = 150, output: ALSAOutput, logger: Logger) {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        self.output = output
        self.logger = logger
        self.state = Mutex("espeak-ng, voice \(voice) (loaded at the first sentence)")
        Threads.start("voice") { [self] in run() }
    }

    public var statusLine: String { state.withLock { $0 } }

    public func say(_ text: String) {
        logger.info("voice: saying \"\(text)\"")
        queue.withLock { $0.append((text, Monotonic.seconds())) }
        wakeUp.signal()
    }

    private func run() {
        var sampleRate: Int?
        var failed = false
        while true {
            guard let next = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                wakeUp.wait()
                continue
            }
            if sampleRate == nil, !failed {
                let rate = RV_speech_start(voice, Int32(wordsPerMinute))
                if rate > 0 {
                    sampleRate = Int(rate)
                    state.withLock { $0 = "espeak-ng, voice \(voice)" }
                } else {
                    failed = true
                    let why =
                        switch rate {
                        case -2: "espeak-ng has no voice \"\(voice)\"; see espeak-ng --voices"
                        case -3: "libespeak-ng is not installed (Debian package libespeak-ng1)"
                        default: "espeak-ng's data is missing (Debian package espeak-ng-data)"
                        }
                    state.withLock { $0 = "silent: \(why)" }
                    logger.warning("voice: \(why); everything else works, silently")
                }
            }
            guard let sampleRate else { continue }
            var samples: UnsafeMutablePointer<Int16>?
            var count = 0
            let result = RV_speech_synthesize(next.text, &samples, &count)
            guard result == 0, let samples else {
                logger.warning("voice: espeak-ng could not say \"\(next.text)\" (error \(result))")
                continue
            }
            let buffer = Array(UnsafeBufferPointer(start: samples, count: count))
            free(samples)
            output.speak(buffer, sampleRate: sampleRate, text: next.text, askedAt: next.askedAt)
        }
    }
}
