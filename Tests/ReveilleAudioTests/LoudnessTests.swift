import ReveilleTestSupport
import Testing

@testable import ReveilleAudio

@Suite struct LoudnessTests {
    @Test func volumeMapsToACubicGain() {
        #expect(Loudness.gain(forVolume: 0) == 0)
        #expect(Loudness.gain(forVolume: 100) == 1)
        #expect(abs(Loudness.gain(forVolume: 50) - 0.125) < 1e-6)
        #expect(Loudness.gain(forVolume: 150) == 1)
        #expect(Loudness.gain(forVolume: -5) == 0)
    }

    @Test func fadeInRisesLinearlyToTheAlarmsVolume() {
        var loudness = Loudness(volume: 80, fadeInSeconds: 2, sampleRate: 1000)
        #expect(loudness.currentVolume == 0)
        var samples = [Int16](repeating: 1000, count: 1000)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 1000, channels: 1) }
        #expect(abs(loudness.currentVolume - 40) < 0.1)
        #expect(samples[0] == 0)
        #expect(samples[999] > samples[500] && samples[500] > samples[100])
        samples = [Int16](repeating: 1000, count: 2000)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 2000, channels: 1) }
        #expect(loudness.currentVolume == 80)
        #expect(samples[1999] == Int16((1000 * Loudness.gain(forVolume: 80)).rounded()))
    }

    @Test func noFadeStartsAtFullVolume() {
        let loudness = Loudness(volume: 60, fadeInSeconds: 0, sampleRate: 48_000)
        #expect(loudness.currentVolume == 60)
    }

    @Test func attenuationGlidesToHalfTheVolumeAndBack() {
        var loudness = Loudness(volume: 80, fadeInSeconds: 0, sampleRate: 1000)
        var samples = [Int16](repeating: 1000, count: 400)
        loudness.setAttenuated(true)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 50, channels: 1) }
        #expect(loudness.currentVolume < 80 && loudness.currentVolume > 40)  // half-way through the glide
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 100, channels: 1) }
        #expect(abs(loudness.currentVolume - 40) < 1e-9)
        loudness.setAttenuated(false)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 200, channels: 1) }
        #expect(abs(loudness.currentVolume - 80) < 1e-9)
    }

    @Test func everyChannelOfAFrameGetsTheSameGain() {
        var loudness = Loudness(volume: 100, fadeInSeconds: 1, sampleRate: 10)
        var samples: [Int16] = [10_000, 10_000, 10_000, 10_000]
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 2, channels: 2) }
        #expect(samples[0] == samples[1])
        #expect(samples[2] == samples[3])
        #expect(samples[2] > samples[0])
    }

    @Test func loudSamplesClampInsteadOfWrapping() {
        var loudness = Loudness(volume: 100, fadeInSeconds: 0, sampleRate: 10)
        var samples: [Int16] = [Int16.max, Int16.min]
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 2, channels: 1) }
        #expect(samples == [Int16.max, Int16.min])
    }
}

@Suite struct ToneTests {
    @Test func theToneIsFourBeepsOf880HzThenSilence() {
        let tone = ToneSource()
        var samples = [Int16](repeating: 0, count: 57_600)
        let count = samples.withUnsafeMutableBufferPointer { try! tone.read(into: $0, frames: 57_600) }
        #expect(count == 57_600)
        var more = [Int16](repeating: 0, count: 100)
        #expect(more.withUnsafeMutableBufferPointer { try! tone.read(into: $0, frames: 100) } == 0)  // one cycle
        try! tone.rewind()
        #expect(more.withUnsafeMutableBufferPointer { try! tone.read(into: $0, frames: 100) } == 100)
        let recording = Recording(sampleRate: 48_000, channels: 1, samples: samples)
        for beep in 0..<4 {
            let start = Double(beep) * 0.2
            #expect(recording.peak(from: start + 0.01, to: start + 0.09) > 25_000)
            #expect(recording.peak(from: start + 0.101, to: start + 0.199) == 0)
            #expect(recording.dominant(among: [440, 660, 880, 1000, 1760], from: start, to: start + 0.1) == 880)
        }
        #expect(recording.peak(from: 0.8, to: 1.2) == 0)
        #expect(recording.peak(from: 0, to: 0.0005) < 5000)  // each beep rises: no click
    }

    /// The loudness rises from where the fade-in is to full volume over two seconds.
    @Test func loudnessRisesToFullVolume() {
        var loudness = Loudness(volume: 40, fadeInSeconds: 0, sampleRate: 1000)
        var samples = [Int16](repeating: 1000, count: 10)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 10, channels: 1) }
        #expect(loudness.currentVolume == 40)
        loudness.escalate()
        var more = [Int16](repeating: 1000, count: 1000)
        more.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 1000, channels: 1) }
        #expect(abs(loudness.currentVolume - 70) < 1)
        more.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 1000, channels: 1) }
        #expect(loudness.currentVolume == 100)
    }

    /// A ceiling holds the volume and the escalation's rise.
    @Test func aCeilingHoldsTheVolumeAndTheRise() {
        var loudness = Loudness(volume: 80, fadeInSeconds: 0, sampleRate: 1000, ceiling: 60)
        var samples = [Int16](repeating: 1000, count: 3000)
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 10, channels: 1) }
        #expect(loudness.currentVolume == 60)
        loudness.escalate()
        samples.withUnsafeMutableBufferPointer { loudness.apply(to: $0, frames: 3000, channels: 1) }
        #expect(loudness.currentVolume == 60)
        var lower = Loudness(volume: 40, fadeInSeconds: 0, sampleRate: 1000, ceiling: 60)
        lower.escalate()
        samples.withUnsafeMutableBufferPointer { lower.apply(to: $0, frames: 3000, channels: 1) }
        #expect(lower.currentVolume == 60)
    }
}
