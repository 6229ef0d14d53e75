import CReveilleShims
import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore
import ReveilleSystem
import Synchronization

/// The loop's side of the app guard: each followed process's pidfd on the event loop, and the
/// review timer armed where `AppLimits` asked. Idle (no app running), it arms nothing.
final class AppFollower {
    let supervisor: AppSupervisor
    let loop: EventLoop
    private let timer: LoopTimer

    /// /proc/self/mountinfo, which polls as changed (EPOLLPRI) when anything is mounted or
    /// unmounted: a USB stick mounted later has its execs watched too.
    private let mountinfo: Descriptor?
    private var listedWatches: FolderWatches?
    /// What `listedWatches` watches: folder → the listed names in it.
    private var listedWatchKey: [String: Set<String>] = [:]
    /// Told when a changed apps.toml is refused.
    private let feed: WatchFeed
    /// Where apps.toml is read and checked when it changes; nil: on the loop (in-process tests).
    private let offLoop: OffLoop?
    /// The number of the last read of apps.toml begun: only the newest read's result is taken, so
    /// one that waited (a slow disk, a pipe) never undoes a later one.
    private var reads = 0
    /// A listed executable changed since the last read taken: the next one reads them all again.
    private var forced = false

    init(supervisor: AppSupervisor, loop: EventLoop, feed: WatchFeed, offLoop: OffLoop? = nil, logger: Logger) throws {
        self.supervisor = supervisor
        self.loop = loop
        self.feed = feed
        self.offLoop = offLoop
        timer = try LoopTimer(.monotonic, logger: logger)
        if supervisor.guardian != nil {
            do {
                mountinfo = try Descriptor.open("open", Mounts.path) { open(Mounts.path, O_RDONLY | O_CLOEXEC) }
            } catch {
                logger.warning("app guard: \(error); file systems mounted later are watched after a restart")
                mountinfo = nil
            }
        } else {
            mountinfo = nil
        }
        try loop.watch(timer.fd) { [unowned self] _ in
            _ = timer.acknowledge()
            arm(supervisor.review())
        }
        if let mountinfo {
            try loop.watch(mountinfo.raw, events: AppFollower.priority) { _ in supervisor.watchFilesystems() }
        }
        if let guardian = supervisor.guardian, guardian.stallTimer >= 0 {
            try loop.watch(guardian.stallTimer) { _ in
                var expirations: UInt64 = 0
                // EAGAIN: the timer was re-armed meanwhile (the exec was answered); nothing expired.
                guard read(guardian.stallTimer, &expirations, 8) == 8 else { return }
                guard let stalled = supervisor.guardStalledSeconds() else { return }
                // Every exec on the watched file systems waits for the guard: restart now, and the
                // kernel allows what waited when its descriptor closes.
                logger.critical(
                    "app guard: one exec unanswered for \(NumberText.fixed(stalled, 1)) s; asking systemd to restart the daemon"
                )
                ServiceManager.watchdogTrigger()
            }
        }
    }

    deinit {
        if let stallTimer = supervisor.guardian?.stallTimer, stallTimer >= 0 { loop.unwatch(stallTimer) }
        if let mountinfo { loop.unwatch(mountinfo.raw) }
    }

    /// apps.toml changed (`force`: a listed executable did): read and check it on a thread of its
    /// own (a file of thousands of apps takes a while, and a ring never waits for it), then
    /// `policyRead` on the loop.
    func policyChanged(force: Bool) {
        reads += 1
        forced = forced || force
        guard let offLoop else { return policyRead(supervisor.fileReader(), number: reads) }
        let (reader, number) = (supervisor.fileReader, reads)
        offLoop.run("apps-policy") { .appPolicyRead(reader(), number: number) }
    }

    /// apps.toml as read off the loop (read `number`): load the policy again, review the running
    /// apps, and watch the listed files anew. A policy refused keeps the one in force, and
    /// watchers hear why. A read overtaken by a later one is dropped: the later one is taken.
    func policyRead(_ read: AppSupervisor.FileRead, number: Int) {
        guard number == reads else {
            supervisor.logger.info("app policy: a read of apps.toml was overtaken by a later change; dropped")
            return
        }
        let force = forced
        forced = false
        let before = (supervisor.revision, supervisor.conflicts)
        if let why = supervisor.reload(force: force, read: read) { feed.publish(.policyRejected(why)) }
        // The page and `apps list` look again: a hand edit merged, or one that could not be.
        if before != (supervisor.revision, supervisor.conflicts) { feed.publish(.appPolicy(supervisor.revision)) }
        supervisor.review()
        watchListedFiles()
    }

    /// Watches the folders of the listed executables: one written or replaced (a package upgrade,
    /// or its owner changing it) reads them all again (`policyChanged`). Called after each policy
    /// load. The same files keep the same watches: a file replaced while the others were being read
    /// again is still heard (its event waits on the descriptor), not lost with a watch made anew.
    func watchListedFiles() {
        let files = supervisor.listedFiles
        let folders = Dictionary(grouping: files) { PathName.folder($0) }.mapValues {
            Set($0.map { PathName.last($0) })
        }
        if listedWatches != nil, folders == listedWatchKey { return }
        let watches = FolderWatches(loop: loop, logger: supervisor.logger)
        for (folder, names) in folders {
            do {
                try watches.watch(folder: folder, names: names) { [unowned self] in
                    supervisor.logger.notice(
                        "app guard: a listed executable in \(folder) changed; reading the listed executables again")
                    policyChanged(force: true)
                }
            } catch {
                supervisor.logger.warning(
                    "app guard: cannot watch \(folder): \(error); a listed file replaced there is read again when apps.toml is saved"
                )
            }
        }
        listedWatches = watches
        listedWatchKey = folders
    }

    /// EPOLLPRI | EPOLLERR: how procfs reports a changed mount table.
    static let priority: UInt32 = 0x002 | 0x008

    /// A process to follow (posted by the guard's thread or `reveille run`).
    func follow(pid: Int32, pidfd: Descriptor) {
        let key = supervisor.followed(pid: pid)
        if let key { feed.publish(.appRunning(AppRunning(user: key.user, app: key.app, running: true))) }
        do {
            // The handler holds the pidfd: it closes once unwatched and let go by the supervisor.
            try loop.watch(pidfd.raw) { [unowned self] _ in
                loop.unwatch(pidfd.raw)
                arm(supervisor.exited(pid: pid))
                if let key { feed.publish(.appRunning(AppRunning(user: key.user, app: key.app, running: false))) }
            }
        } catch {
            // Not followed on the loop: the review timer still counts it and ends it when due.
            supervisor.logger.error("app (pid \(pid)): cannot watch its pidfd: \(error)")
        }
        arm(supervisor.review())
    }

    private func arm(_ after: Double?) {
        timer.arm(after: after ?? 0)
    }
}
