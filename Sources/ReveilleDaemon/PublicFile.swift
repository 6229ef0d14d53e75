import Glibc

/// Whether a path a request names is a regular file that anyone on the machine could read for
/// themselves: every folder on the way searchable by others (o+x), the file readable by others
/// (o+r). Only `stat` is used, so nothing is opened (a FIFO does not block, a device is not
/// touched).
enum PublicFile {
    enum Verdict: Equatable {
        case regular
        /// It does not exist, and the folders that would hold it are open to all: anyone could see that.
        case missing
        /// A folder, a FIFO, a device: anyone could see that too.
        case notRegular
        /// Not readable by everyone, or behind a folder not everyone may search, or missing behind
        /// such a folder: one verdict for all, so that it tells nothing about what is there.
        case notPublic
    }

    static func check(_ path: String) -> Verdict {
        var folder = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        for part in [""] + parts.map(String.init) {
            folder += part.isEmpty ? "/" : (folder == "/" ? "" : "/") + part
            var info = stat()
            guard stat(folder, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .notPublic }
            guard info.st_mode & S_IFMT == S_IFDIR, info.st_mode & S_IXOTH != 0 else { return .notPublic }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .notPublic }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notRegular }
        guard info.st_mode & S_IROTH != 0 else { return .notPublic }
        return .regular
    }
}
