import ReveilleSystem
import Glibc
import Logging
import ReveilleCore

/// Escalation's second voice (docs/guide/ringing.md, "Escalation, and sound that cannot be heard"): the ring at
/// full volume on one backup device, beside the device the alarm plays on, until the ring stops
/// (its job is replaced). It writes without blocking — a full device is waited for in 5 ms
/// slices, and one that takes nothing for 3 s is given up — and leaves the main writer's status,
/// watchdog, speech and silence alone. `ALSAOutput` runs at most one per device: one stuck in a
/// device is never joined by another.
struct BackupPlayback {
    let job: Playback.Job
    let device: String
    let output: ALSAOutput

    func run() {
        let logger = output.logger
        let path = job.request.sound ?? output.configuration.defaultSound
        let file = path.flatMap { $0.isEmpty ? nil : try? SoundFile.open($0, within: Playback.fileOpenSeconds) }
        let source: any SoundSource = file ?? ToneSource()
        let channels = source.channels
        let pcm: PCMStream
        do {
            pcm = try PCMStream(device: device, sampleRate: source.sampleRate, channels: channels)
        } catch {
            logger.warning("sound: backup device: cannot open \(error)")
            return
        }
        defer {
            pcm.drop()
            pcm.close()
        }
        let ceiling = job.request.ceiling
        logger.notice(
            "sound: ringing on backup device \(device) too, at \(ceiling < 100 ? "its ceiling, volume \(ceiling)" : "full volume")"
        )
        var loudness = Loudness(volume: ceiling, fadeInSeconds: 2, sampleRate: source.sampleRate, ceiling: ceiling)
        let chunk = max(source.sampleRate / 50, 64)
        var buffer = [Int16](repeating: 0, count: chunk * channels)
        let started = Monotonic.seconds()
        var written = 0
        while output.isCurrent(job) {
            let filled: Int
            do {
                filled = try Playback.fill(&buffer, frames: chunk, from: source, looping: true)
            } catch {
                logger.warning("sound: backup device \(device): cannot read \(source.name): \(error)")
                return
            }
            guard filled > 0 else { return }
            buffer.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: filled, channels: channels) }
            var offset = 0
            var waited = 0
            while offset < filled, output.isCurrent(job) {
                do {
                    let progress = try buffer.withUnsafeBufferPointer { all in
                        try pcm.write(
                            UnsafeBufferPointer(rebasing: all[(offset * channels)...]), frames: filled - offset,
                            channels: channels)
                    }
                    switch progress {
                    case .wrote(let count):
                        offset += count
                        if count > 0 { waited = 0 }
                    case .full:
                        if try !pcm.waitForRoom(milliseconds: 5) { waited += 5 }
                        if waited >= 3000 {
                            logger.warning("sound: backup device \(device) took nothing for 3 s; it is left out")
                            return
                        }
                    }
                } catch {
                    logger.warning("sound: backup device: \(error); it is left out")
                    return
                }
            }
            written += filled
            // Paced to the wall clock, at most 0.3 s ahead, as the main writer is.
            let ahead = Double(written) / Double(source.sampleRate) - (Monotonic.seconds() - started)
            if ahead > 0.3 { usleep(UInt32(min(ahead - 0.3, 0.02) * 1_000_000)) }
        }
        logger.info("sound: backup device \(device) stopped")
    }
}
