import CSndFile
import Foundation
import Synchronization

/// A sound file decoded by libsndfile (WAV, FLAC, Ogg Vorbis and Opus, MP3 with libsndfile 1.1+),
/// streamed from disk in chunks so that a long file costs no memory.
/// Unchecked Sendable: made on a thread of its own (`open(_:within:)`) and handed once to the audio
/// thread, which alone uses it from then on.
final class SoundFile: SoundSource, @unchecked Sendable {
    let sampleRate: Int
    let channels: Int
    let name: String
    private let handle: OpaquePointer
    private let fd: Int32

    /// Opens `path` as `RegularFile.open` does (never a FIFO, a device or a folder), then hands
    /// the descriptor to sf_open_fd; fails with libsndfile's reason (unknown format, no audio).
    init(path: String) throws {
        let fd = try RegularFile.open(path)
        var info = SF_INFO()
        guard let handle = sf_open_fd(fd, Int32(SFM_READ), &info, 0) else {
            let message = String(cString: sf_strerror(nil))
            close(fd)
            throw AudioError("sf_open_fd", target: path, code: sf_error(nil), message: message)
        }
        guard info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(handle)
            close(fd)
            throw AudioError("sf_open_fd", target: path, code: 0, message: "the file holds no audio")
        }
        self.handle = handle
        self.fd = fd
        self.sampleRate = Int(info.samplerate)
        self.channels = Int(info.channels)
        self.name = path
    }

    deinit {
        sf_close(handle)
        close(fd)
    }

    /// `init(path:)` on a thread of its own, waited for at most `seconds`: a file on a hung network
    /// or FUSE mount must not keep an alarm silent. A call that does not return in time is left to
    /// finish on its thread (what it opens is then closed there) and reported as a timeout.
    static func open(_ path: String, within seconds: Double) throws -> SoundFile {
        let outcome = Mutex<Result<SoundFile, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Result { try SoundFile(path: path) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.name = "sound-file"
        thread.start()
        guard done.wait(timeout: .now() + seconds) == .success, let result = outcome.withLock({ $0.take() }) else {
            throw AudioError(
                "open", target: path, code: ETIMEDOUT,
                message: "not opened and read within \(Int(seconds)) s (a hung mount?)")
        }
        return try result.get()
    }

    /// sf_readf_short: libsndfile converts any sample format to 16-bit.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>, frames: Int) throws -> Int {
        let count = sf_readf_short(handle, buffer.baseAddress, sf_count_t(frames))
        if count < 0 || (count == 0 && sf_error(handle) != 0) {
            throw AudioError(
                "sf_readf_short", target: name, code: sf_error(handle),
                message: String(cString: sf_strerror(handle)))
        }
        return Int(count)
    }

    /// sf_seek to the first frame.
    func rewind() throws {
        if sf_seek(handle, 0, SEEK_SET) < 0 {
            throw AudioError(
                "sf_seek", target: name, code: sf_error(handle), message: String(cString: sf_strerror(handle)))
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif
