import CReveilleShims
import Glibc

/// What every child of the daemon (hooks, `--unless` commands, the calendar reader) and of the
/// calendar fetcher starts with:
/// no blocked signals and the default actions for SIGPIPE, SIGTERM, SIGINT and SIGHUP. The daemon
/// blocks the last three for its signalfd and ignores SIGPIPE, and both would otherwise pass
/// through `exec` to the child (a hook that cannot be stopped by SIGTERM, a pipeline that never
/// sees its reader leave). posix_spawnattr_setsigmask and posix_spawnattr_setsigdefault.
public final class SpawnAttributes {
    public var attributes = posix_spawnattr_t()

    public init() {
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    deinit { posix_spawnattr_destroy(&attributes) }
}

/// A child of the daemon whose standard output (and, if asked, its standard error) is a pipe the
/// daemon reads: standard input from /dev/null, no other descriptor of the daemon's, the signal
/// state of `SpawnAttributes`.
public struct SpawnedChild {
    public let pid: pid_t
    /// The pipe's read end; the write end is the child's alone, so reading ends when the child
    /// closes its output (or exits).
    public let output: Descriptor

    /// Starts `argv[0]` (an absolute path) with `environment`.
    public init(_ argv: [String], environment: [String], errorsToOutput: Bool) throws(SystemCallError) {
        let pipe = try Descriptor.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe.write.raw, 1)
        if errorsToOutput {
            posix_spawn_file_actions_adddup2(&actions, pipe.write.raw, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        RV_spawn_close_from(&actions, 3)  // nothing else of the daemon's: sockets, database, inherited pipes
        let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { (arguments + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawnAttributes = SpawnAttributes()
        let spawned = pipe.write.withRaw { _ in
            posix_spawn(&pid, argv[0], &actions, &spawnAttributes.attributes, arguments, envp)
        }
        guard spawned == 0 else { throw SystemCallError("posix_spawn", argv[0], errno: spawned) }
        self.pid = pid
        output = pipe.read
        // `pipe.write` goes with this scope: the daemon's copy of the write end is closed here.
    }
}

extension SpawnedChild {
    /// Everything the child prints until it closes its output, then how it ended: its exit code,
    /// or the signal that stopped it. For a child whose running time its own limits bound.
    public func readToEnd() -> (output: [UInt8], exit: Int32?, signal: Int32?) {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = output.withRaw { fd in chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if count > 0 {
                data += chunk[..<count]
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                break
            } else if errno == EAGAIN {
                var poller = pollfd(fd: output.raw, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, -1)
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f != 0 ? (data, nil, status & 0x7f) : (data, (status >> 8) & 0xff, nil)
    }
}
