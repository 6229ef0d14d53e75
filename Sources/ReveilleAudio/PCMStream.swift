import CALSA
import Glibc

/// An open ALSA playback PCM (owns the `snd_pcm_t`, closed in `deinit`), set up for interleaved
/// signed 16-bit frames at the source's rate and channel count. Writes do not block: `write`
/// waits for room in slices so that the playback thread can see a stop request between them.
final class PCMStream {
    let device: String
    private let pcm: OpaquePointer

    /// The device buffer, in microseconds: short enough that a drop is heard at once, long enough
    /// that a busy Raspberry Pi does not underrun.
    static let latencyMicroseconds: UInt32 = 100_000

    /// snd_pcm_open (non-blocking, so that a device held by someone else fails at once instead of
    /// waiting for it) and snd_pcm_set_params, which lets ALSA's plug layer resample and convert.
    init(device: String, sampleRate: Int, channels: Int) throws {
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard opened >= 0, let handle else { throw AudioError.alsa("snd_pcm_open", device, opened) }
        let configured = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(channels), UInt32(sampleRate), 1,
            PCMStream.latencyMicroseconds)
        guard configured >= 0 else {
            snd_pcm_close(handle)
            throw AudioError.alsa("snd_pcm_set_params", device, configured)
        }
        self.pcm = handle
        self.device = device
    }

    private var closed = false

    deinit { close() }

    /// snd_pcm_close, once.
    func close() {
        guard !closed else { return }
        closed = true
        snd_pcm_close(pcm)
    }

    /// What a write loop should do next.
    enum Progress {
        case wrote(Int)
        /// No room yet: wait with `waitForRoom`.
        case full
    }

    /// snd_pcm_writei; an underrun or a suspend is recovered with snd_pcm_recover (silently: the
    /// daemon logs it), anything else is the device failing.
    func write(_ samples: UnsafeBufferPointer<Int16>, frames: Int, channels: Int) throws -> Progress {
        let written = snd_pcm_writei(pcm, samples.baseAddress, snd_pcm_uframes_t(frames))
        if written >= 0 { return .wrote(Int(written)) }
        if written == -Int(EAGAIN) { return .full }
        try recover(Int32(written), "snd_pcm_writei")
        return .wrote(0)
    }

    /// snd_pcm_wait for up to `milliseconds`; true when there is room.
    func waitForRoom(milliseconds: Int32) throws -> Bool {
        let ready = snd_pcm_wait(pcm, milliseconds)
        if ready >= 0 { return ready > 0 }
        try recover(ready, "snd_pcm_wait")
        return true
    }

    /// Underruns (EPIPE), suspends (ESTRPIPE) and interrupted calls are recovered; the rest throws.
    private func recover(_ error: Int32, _ function: String) throws {
        guard error == -EPIPE || error == -ESTRPIPE || error == -EINTR else {
            throw AudioError.alsa(function, device, error)
        }
        let recovered = snd_pcm_recover(pcm, error, 1)
        if recovered < 0 { throw AudioError.alsa("snd_pcm_recover", device, recovered) }
        underruns += 1
    }

    /// Underruns and suspends recovered so far.
    private(set) var underruns = 0

    /// snd_pcm_drop: stops now, discarding what is buffered.
    func drop() { snd_pcm_drop(pcm) }

    /// snd_pcm_drain in blocking mode: plays out what is buffered (the end of a chime).
    func drain() {
        snd_pcm_nonblock(pcm, 0)
        snd_pcm_drain(pcm)
    }
}
