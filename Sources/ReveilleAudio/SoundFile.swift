import CSndFile

/// A sound file decoded by libsndfile (WAV, FLAC, Ogg Vorbis and Opus, MP3 with libsndfile 1.1+),
/// streamed from disk in chunks so that a long file costs no memory.
final class SoundFile: SoundSource {
    let sampleRate: Int
    let channels: Int
    let name: String
    private let handle: OpaquePointer

    /// Opens `path` with sf_open; fails with libsndfile's reason (not found, unknown format).
    init(path: String) throws {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioError(
                "sf_open", target: path, code: sf_error(nil), message: String(cString: sf_strerror(nil)))
        }
        guard info.channels > 0, info.samplerate > 0, info.frames > 0 else {
            sf_close(handle)
            throw AudioError("sf_open", target: path, code: 0, message: "the file holds no audio")
        }
        self.handle = handle
        self.sampleRate = Int(info.samplerate)
        self.channels = Int(info.channels)
        self.name = path
    }

    deinit { sf_close(handle) }

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
