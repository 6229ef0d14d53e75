import Glibc

/// What every child of the daemon (hooks, `--unless` commands, the calendar reader) starts with:
/// no blocked signals and the default actions for SIGPIPE, SIGTERM, SIGINT and SIGHUP. The daemon
/// blocks the last three for its signalfd and ignores SIGPIPE, and both would otherwise pass
/// through `exec` to the child (a hook that cannot be stopped by SIGTERM, a pipeline that never
/// sees its reader leave). posix_spawnattr_setsigmask and posix_spawnattr_setsigdefault.
final class SpawnAttributes {
    var attributes = posix_spawnattr_t()

    init() {
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
