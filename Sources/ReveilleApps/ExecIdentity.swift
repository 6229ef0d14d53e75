import ReveilleCore

/// What a file is, by its content: its size and SHA-256 (hex). Two files with the same content are
/// the same program, whatever their names or folders (docs/guide/apps.md, "What counts as the app").
public struct ContentID: Hashable, Sendable, CustomStringConvertible {
    public var size: Int64
    public var sha256: String

    public init(size: Int64, sha256: String) {
        self.size = size
        self.sha256 = sha256
    }

    public var description: String { "\(size) bytes, sha256 \(sha256.prefix(12))…" }
}

/// One version of one file as `fstat` sees it. Any write or `chmod` changes the ctime, which no
/// user can set, so a stamp seen before names the same content as before: the key of the guard's
/// hash cache.
public struct FileStamp: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Nanoseconds since the epoch.
    public var modified: Int64
    public var changed: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }
}

/// How a file starts, which decides what the kernel does next when it is executed.
public enum ExecutableKind: Hashable, Sendable {
    /// An ELF program with an interpreter (PT_INTERP): the kernel opens the dynamic loader next,
    /// in the same exec.
    case dynamicProgram
    /// An ELF without an interpreter: a static program, or the dynamic loader itself.
    case staticProgram
    /// `#!`: the kernel opens the interpreter next; the interpreter reads the script as a file.
    case script
    case other
}

/// What the guard knows about a file: which app it is, by content (nil: none), whether it is a
/// dynamic loader (by content too: a copy of ld.so is still ld.so), and its kind.
public struct ExecVerdict: Hashable, Sendable {
    public var app: String?
    public var isLoader: Bool
    public var kind: ExecutableKind

    public init(app: String?, isLoader: Bool, kind: ExecutableKind) {
        self.app = app
        self.isLoader = isLoader
        self.kind = kind
    }
}

/// One file, whatever its names: device and inode.
public struct FileKey: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

extension FileStamp {
    public var key: FileKey { FileKey(device: device, inode: inode) }
}

/// The programs the guard recognizes, by content: each listed executable's, taken when the policy
/// loads, and the dynamic loaders'. Only a file whose size is one of theirs is worth hashing. The
/// listed files themselves are also known by inode, so that one changed where it lies (by an
/// owner who may write it) is still the app.
public struct ExecCatalog: Sendable, Equatable {
    public private(set) var apps: [ContentID: String] = [:]
    public private(set) var listedFiles: [FileKey: String] = [:]
    public private(set) var loaders: Set<ContentID> = []
    /// Sizes of everything above.
    public private(set) var sizes: Set<Int64> = []

    public init() {}

    public mutating func add(_ content: ContentID, app: String, file: FileKey? = nil) {
        if apps[content] == nil { apps[content] = app }
        if let file, listedFiles[file] == nil { listedFiles[file] = app }
        sizes.insert(content.size)
    }

    public mutating func addLoader(_ content: ContentID) {
        loaders.insert(content)
        sizes.insert(content.size)
    }

    /// Whether a file of `size` bytes could be one of the catalog's: only then is it hashed.
    public func mayMatch(size: Int64) -> Bool { sizes.contains(size) }

    /// The verdict on a file of `content` (nil: not hashed), which is `file`.
    public func verdict(for content: ContentID?, file: FileKey? = nil, kind: ExecutableKind) -> ExecVerdict {
        let listed = file.flatMap { listedFiles[$0] }
        guard let content else { return ExecVerdict(app: listed, isLoader: false, kind: kind) }
        return ExecVerdict(app: apps[content] ?? listed, isLoader: loaders.contains(content), kind: kind)
    }
}

/// Tells a program started normally from one started through the dynamic loader, as fapolicyd's
/// `ld_so` pattern does. A dynamically linked program's exec makes the kernel open two files, in
/// order, for the same pid: the program, then its loader. Run directly (`ld.so /path/to/game`),
/// the loader is the first and only file the exec opens; it then reads the game as plain data,
/// which no exec check sees. So a loader is an interpreter when the same pid's previous exec
/// event was a dynamic program, and otherwise run directly.
///
/// On overlayfs (a chroot, a container) each file an exec opens is reported twice, the overlay's
/// then the real one in the layer beneath: program, program, loader, loader, with the same inode
/// number, size and modification time on another device (measured on Debian 12's kernel). The
/// second loader is the first one's layer, not a run of its own, when it matches the loader just
/// seen in all three: a copy of the loader elsewhere has another inode.
public struct ExecSequence: Sendable {
    /// Pids whose last exec event was a dynamic program, whose loader comes next.
    private var awaitingLoader: Set<Int32> = []
    /// The loader a pid's exec just opened as its interpreter, which overlayfs reports once more.
    private var lastLoader: [Int32: FileStamp] = [:]
    /// Bound on `awaitingLoader` (an exec that failed between the two events leaves its pid).
    public static let limit = 4096

    public init() {}

    /// Records an exec event of `pid` for `file`; returns true when it is the loader run directly.
    public mutating func exec(pid: Int32, _ verdict: ExecVerdict, file: FileStamp? = nil) -> Bool {
        let previousLoader = lastLoader.removeValue(forKey: pid)
        if verdict.isLoader, let previousLoader, let file, previousLoader.device != file.device,
            previousLoader.inode == file.inode, previousLoader.size == file.size,
            previousLoader.modified == file.modified
        {
            return false  // the overlay's loader again, from the layer beneath
        }
        let expected = awaitingLoader.remove(pid) != nil
        if verdict.kind == .dynamicProgram {
            if awaitingLoader.count >= Self.limit { awaitingLoader.removeAll() }
            awaitingLoader.insert(pid)
        }
        if verdict.isLoader, expected, let file {
            if lastLoader.count >= Self.limit { lastLoader.removeAll() }
            lastLoader[pid] = file
        }
        return verdict.isLoader && !expected
    }

    /// How long after the guard began watching more file systems a loader with no program before
    /// it may still be the second half of an exec that began unwatched.
    public static let unwatchedStartSeconds = 2.0

    /// Whether a loader judged run directly may instead be the second half of an exec that began
    /// before its program's file system was watched: the kernel reported only the loader, because
    /// the program was opened before the mark was placed. That can be so only for a process that
    /// existed before the guard began watching more (`watchGrewAt`, nil: never), and only shortly
    /// after: an exec's two opens are one system call apart. Times are seconds on one clock
    /// (CLOCK_BOOTTIME, as /proc gives a process's start); `processStarted` is in whole ticks, so a
    /// process started in the same tick as the marks counts as before them.
    public static func mayHaveBegunUnwatched(processStarted: Double?, watchGrewAt: Double?, now: Double) -> Bool {
        guard let processStarted, let watchGrewAt else { return false }
        return processStarted <= watchGrewAt && now >= watchGrewAt && now - watchGrewAt <= unwatchedStartSeconds
    }
}

extension AppPolicy {
    /// Whether any enabled app limits `user`: such users may not run the dynamic loader directly,
    /// since what it would load cannot be known when it starts.
    public func limits(user: String, isPerson: Bool = true) -> Bool {
        apps.contains { $0.enabled && $0.applies(to: user, isPerson: isPerson) }
    }
}
