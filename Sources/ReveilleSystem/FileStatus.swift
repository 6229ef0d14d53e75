import Glibc

/// A file's size and modification time by `stat(2)`: Foundation's attribute dictionary gives
/// them as values whose type differs with what the program links (an `Int` only where all of
/// Foundation bridges it), so the same code read a size in the tests and none in the release build.
public struct FileStatus: Sendable {
    /// Bytes.
    public let size: Int
    /// Seconds since the epoch.
    public let modified: Int

    /// nil when there is no such file (or it cannot be reached).
    public init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec)
    }
}
