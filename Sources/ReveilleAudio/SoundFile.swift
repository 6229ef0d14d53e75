import CSndFile
import Dispatch
import FoundationEssentials
import Glibc
import ReveilleSystem
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
    /// The file libsndfile reads (closed after `sf_close`, as the stored properties go after `deinit`).
    private let file: Descriptor

    /// Opens `path` as `RegularFile.open` does (never a FIFO, a device or a folder), then hands
    /// the descriptor to sf_open_fd; fails with libsndfile's reason (unknown format, no audio).
    init(path: String) throws {
        let file: Descriptor
        do {
            file = try RegularFile.open(path)
        } catch {
            throw AudioError(error.call, target: path, code: error.errno, message: error.reason)
        }
        var info = SF_INFO()
        guard let handle = file.withRaw({ sf_open_fd($0, Int32(SFM_READ), &info, 0) }) else {
            throw AudioError(
                "sf_open_fd", target: path, code: sf_error(nil), message: String(cString: sf_strerror(nil)))
        }
        guard info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(handle)
            throw AudioError("sf_open_fd", target: path, code: 0, message: "the file holds no audio")
        }
        self.handle = handle
        self.file = file
        self.sampleRate = Int(info.samplerate)
        self.channels = Int(info.channels)
        self.name = path
    }

    deinit {
        sf_close(handle)
    }

    /// `init(path:)` on a thread of its own, waited for at most `seconds`: a file on a hung network
    /// or FUSE mount must not keep an alarm silent. A call that does not return in time is left to
    /// finish on its thread (what it opens is then closed there) and reported as a timeout.
    static func open(_ path: String, within seconds: Double) throws -> SoundFile {
        let outcome = Mutex<Result<SoundFile, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Threads.start("sound-file") {
            let result = Result { try SoundFile(path: path) }
            outcome.withLock { $0 = result }
            done.signal()
        }
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
