import ReveilleSystem
import Logging
import ReveilleCore

/// One request played to its end on the output's thread: the source (file or tone), the
/// devices in turn, the write loop with fade-in and attenuation, and the retries.
struct Playback {
    /// A request as posted; `generation` tells whether it is still the one wanted.
    struct Job: Sendable {
        var request: AudioRequest
        var generation: UInt64
        var postedAt: Double
        /// Silence at this rate instead of the request's sound: the bed speech rides on when
        /// nothing else plays.
        var silentBed: Int?
    }

    /// How streaming to one device ended.
    private enum Outcome {
        case finished
        case stopped
        case deviceFailed(AudioError)
        case sourceFailed(Error)
    }

    let job: Job
    let output: ALSAOutput
    private var logger: Logger { output.logger }
    private var request: AudioRequest { job.request }
    /// Problems met before the first frame, for `sound test`.
    private var problems: [String] = []
    /// Whether any frame reached a device.
    private(set) var firstFrameWritten = false
    /// The name of what plays: the file, or the tone when it could not be read.
    private var sourceName = "the built-in tone"

    /// The writer thread playing it (`ALSAOutput.isWriter`): one left behind in a stuck device stops.
    let writer: UInt64

    init(job: Job, output: ALSAOutput, writer: UInt64) {
        self.job = job
        self.output = output
        self.writer = writer
    }

    /// Still the job wanted, on the writer in charge.
    private var isCurrent: Bool { output.isCurrent(job) && output.isWriter(writer) }

    /// The most a writer may get ahead of the wall clock. A real device blocks the writer well
    /// before that (its buffer holds 100 ms); a device that takes frames as fast as they come
    /// (ALSA's null or file plugins) is paced here instead of spinning a core.
    private static let maximumLead = 0.3

    /// How long a sound file may take to open and be recognised before the tone plays instead.
    static let fileOpenSeconds = 1.0

    mutating func run() {
        var source = openSource()
        if case .untilStopped = request.length, let mixer = output.configuration.mixer {
            do {
                try mixer.apply()
                logger.info("sound: mixer control \"\(mixer.control)\" on \(mixer.card) set to \(mixer.level)%")
            } catch {
                logger.warning("sound: cannot set the mixer: \(error); ringing at the mixer's current level")
            }
        }
        var loudness = Loudness(
            volume: request.volume, fadeInSeconds: request.fadeInSeconds, sampleRate: source.sampleRate,
            ceiling: request.ceiling)
        let candidates = request.device.map { [$0] } ?? output.configuration.candidates
        while isCurrent {
            var failures: [String] = []
            var index = 0
            while index < candidates.count, isCurrent {
                let device = candidates[index]
                let next = index + 1 < candidates.count ? "trying \(candidates[index + 1])" : "no device left"
                if output.wedgedDevices.contains(device) {
                    logger.warning("sound: \(device) is still stuck from before; \(next)")
                    failures.append("\(device) is stuck")
                    index += 1
                    continue
                }
                output.enterDevice(device, for: job)
                defer {
                    if output.isWriter(writer) { output.leaveDevice() } else { output.writerReturned(from: device) }
                }
                let pcm: PCMStream
                do {
                    pcm = try PCMStream(device: device, sampleRate: source.sampleRate, channels: source.channels)
                } catch {
                    logger.warning("sound: cannot open \(error); \(next)")
                    failures.append("cannot open \(error)")
                    if !firstFrameWritten { problems.append("cannot open \(error)") }
                    index += 1
                    continue
                }
                output.setStatus("\(activity) \(source.name) on \(device)")
                switch stream(source, to: pcm, loudness: &loudness) {
                case .finished:
                    pcm.drain()
                    pcm.close()
                    logger.info("sound: \(source.name) finished on \(device)")
                    return
                case .stopped:
                    pcm.drop()
                    pcm.close()
                    logStop(device)
                    return
                case .deviceFailed(let error):
                    logger.warning("sound: \(error) while playing; \(next)")
                    // Closed here, with the watchdog still looking: closing a stuck device may block.
                    pcm.close()
                    failures.append("\(error)")
                    if !firstFrameWritten { problems.append("\(error)") }
                    index += 1
                case .sourceFailed(let error):
                    logger.warning("sound: cannot read \(source.name): \(error); playing the built-in tone instead")
                    problems.append("cannot read \(source.name): \(error)")
                    source = ToneSource()
                    sourceName = source.name
                    loudness = Loudness(
                        volume: request.volume, fadeInSeconds: 0, sampleRate: source.sampleRate,
                        ceiling: request.ceiling)
                }
            }
            guard isCurrent else { break }
            if request.device != nil || request.length != .untilStopped {
                logger.error("sound: no device could play \(source.name) (tried \(candidates.joined(separator: ", ")))")
                reportFailure(source)
                return
            }
            let retry = output.configuration.retrySeconds
            output.setSilent(true)
            logger.error(
                "sound: no audio device works (tried \(candidates.joined(separator: ", "))); trying again in \(Int(retry)) s. The alarm is still ringing: dismiss it as usual."
            )
            output.setStatus(
                "no working device (tried \(candidates.joined(separator: ", "))); retrying every \(Int(retry)) s")
            reportFailure(source)
            output.pause(job, seconds: retry)
        }
        logStop(nil)
    }

    /// Tells a waiting `playAndReport` that no device took the sound (once: later rounds are
    /// only logged).
    private func reportFailure(_ source: any SoundSource) {
        guard !firstFrameWritten else { return }
        output.deliver(PlaybackReport(device: nil, source: source.name, problems: problems), for: job)
    }

    private var activity: String {
        if job.silentBed != nil { return "speaking:" }
        return switch request.length {
        case .untilStopped: "ringing:"
        case .once: "chime:"
        case .seconds(let seconds): "testing for \(Int(seconds)) s:"
        }
    }

    /// The alarm's file, else the configured default, else the tone; an unreadable file is
    /// logged and replaced by the tone, never silence.
    private mutating func openSource() -> any SoundSource {
        if let rate = job.silentBed {
            sourceName = "speech"
            return SilenceSource(sampleRate: rate)
        }
        guard let path = request.sound ?? output.configuration.defaultSound, !path.isEmpty else { return ToneSource() }
        do {
            // Checked and opened now, at play time: what `alarm add` saw may since have been
            // replaced (by a FIFO, say) in a folder its owner controls.
            let file = try SoundFile.open(path, within: Playback.fileOpenSeconds)
            sourceName = path
            return file
        } catch {
            logger.warning("sound: cannot read \(error); playing the built-in tone instead")
            problems.append("cannot read \(error)")
            return ToneSource()
        }
    }

    private func logStop(_ device: String?) {
        guard let requested = output.takeStopRequest() else { return }
        let milliseconds = (Monotonic.seconds() - requested) * 1000
        logger.info(
            "sound: stopped\(device.map { " on \($0)" } ?? ""), \(NumberText.fixed(milliseconds, 1)) ms after the request"
        )
    }

    /// Writes the source to `pcm` in 20 ms chunks until it ends, the job is replaced or stopped,
    /// or the device fails.
    private mutating func stream(_ source: any SoundSource, to pcm: PCMStream, loudness: inout Loudness) -> Outcome {
        let channels = source.channels
        let chunkFrames = max(source.sampleRate / 50, 64)
        let limit: Int? =
            if case .seconds(let seconds) = request.length { Int(seconds * Double(source.sampleRate)) } else { nil }
        var buffer = [Int16](repeating: 0, count: chunkFrames * channels)
        let started = Monotonic.seconds()
        var framesHere = 0
        var attenuated = false
        while true {
            guard isCurrent else { return .stopped }
            // Lowered while the sleeper answers, and while the voice speaks.
            let lowered = output.attenuated || output.isSpeaking
            if lowered != attenuated {
                attenuated = lowered
                loudness.setAttenuated(lowered)
            }
            if output.escalated, !loudness.isEscalated { loudness.escalate() }
            var wanted = chunkFrames
            if let limit {
                wanted = min(wanted, limit - Int(loudness.frame))
                if wanted <= 0 { return .finished }
            }
            let filled: Int
            do {
                filled = try Playback.fill(&buffer, frames: wanted, from: source, looping: request.length != .once)
            } catch {
                return .sourceFailed(error)
            }
            if filled == 0 { return .finished }
            let spoken = buffer.withUnsafeMutableBufferPointer { samples in
                loudness.apply(to: samples, frames: filled, channels: channels)
                return output.mixSpeech(into: samples, frames: filled, channels: channels, rate: source.sampleRate)
            }
            for utterance in spoken {
                let asked = (Monotonic.seconds() - utterance.askedAt) * 1000
                let ahead = Double(framesHere) / Double(source.sampleRate) - (Monotonic.seconds() - started)
                logger.info(
                    "voice: first frame of \"\(utterance.text)\" written \(NumberText.fixed(asked, 1)) ms after it was asked, \(NumberText.fixed(max(0, ahead) * 1000, 0)) ms of sound ahead of it"
                )
            }
            do {
                guard try write(buffer, frames: filled, channels: channels, to: pcm) else { return .stopped }
            } catch let error as AudioError {
                return .deviceFailed(error)
            } catch {
                return .deviceFailed(AudioError("write", target: pcm.device, code: 0, message: "\(error)"))
            }
            framesHere += filled
            pace(framesHere, since: started, rate: source.sampleRate)
        }
    }

    /// Reads `frames` frames, rewinding at the end when `looping` (a ring; a chime plays once).
    static func fill(_ buffer: inout [Int16], frames: Int, from source: any SoundSource, looping: Bool) throws -> Int {
        let channels = source.channels
        var filled = 0
        var rewoundEmpty = false
        while filled < frames {
            let count = try buffer.withUnsafeMutableBufferPointer { all in
                try source.read(
                    into: UnsafeMutableBufferPointer(rebasing: all[(filled * channels)...]), frames: frames - filled)
            }
            if count > 0 {
                filled += count
                rewoundEmpty = false
                continue
            }
            if !looping || rewoundEmpty { break }
            try source.rewind()
            rewoundEmpty = true
        }
        return filled
    }

    /// Writes every frame, waiting for room in 5 ms slices; false when the job was stopped
    /// meanwhile. A device that takes nothing for 3 s is wedged: that is a failure.
    private mutating func write(_ buffer: [Int16], frames: Int, channels: Int, to pcm: PCMStream) throws -> Bool {
        var offset = 0
        var stalledMilliseconds: Int32 = 0
        while offset < frames {
            guard isCurrent else { return false }
            let progress = try buffer.withUnsafeBufferPointer { all in
                try pcm.write(
                    UnsafeBufferPointer(rebasing: all[(offset * channels)...]), frames: frames - offset,
                    channels: channels)
            }
            if output.isStalled {
                throw AudioError(
                    "snd_pcm_writei", target: pcm.device, code: 0,
                    message: "the device took nothing for \(Int(ALSAOutput.stallSeconds)) s (its position stopped)")
            }
            switch progress {
            case .wrote(let count):
                offset += count
                if count > 0 {
                    stalledMilliseconds = 0
                    output.noteProgress()
                    if !firstFrameWritten { firstFrame(on: pcm.device) }
                    if request.length == .untilStopped { output.setSilent(false) }
                }
            case .full:
                // Short slices: a stop is noticed between two (snd_pcm_wait cannot be woken).
                if try !pcm.waitForRoom(milliseconds: 5) {
                    stalledMilliseconds += 5
                    if stalledMilliseconds >= 3000 {
                        throw AudioError(
                            "snd_pcm_wait", target: pcm.device, code: 0, message: "the device took nothing for 3 s")
                    }
                }
            }
        }
        return true
    }

    private mutating func firstFrame(on device: String) {
        firstFrameWritten = true
        let milliseconds = (Monotonic.seconds() - job.postedAt) * 1000
        logger.info(
            "sound: first frame on \(device), \(NumberText.fixed(milliseconds, 1)) ms after the start (\(sourceName))"
        )
        output.deliver(PlaybackReport(device: device, source: sourceName, problems: problems), for: job)
    }

    /// Sleeps while more than `maximumLead` seconds of audio are written ahead of the wall clock.
    private func pace(_ frames: Int, since started: Double, rate: Int) {
        while isCurrent {
            let lead = Double(frames) / Double(rate) - (Monotonic.seconds() - started)
            guard lead > Playback.maximumLead else { return }
            // On the output's condition, so that a stop or a new sound wakes it at once.
            output.pause(job, seconds: min(lead - Playback.maximumLead + 0.005, 0.02))
        }
    }
}

import FoundationEssentials
import Glibc
