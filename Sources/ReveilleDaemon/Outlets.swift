import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// Where what the daemon's core does leaves it: the wake timer, the watchers, a parked request's
/// answer, the watches on calendar folders, and the end of a reminder's `--unless` command. Given
/// to `Controller` at its construction (`LoopOutlets` in the daemon, a recorder in tests), so that
/// nothing is wired later and nothing depends on the order things are built in.
protocol Outlets: AnyObject {
    /// Arm the wake timer at a wall-clock instant.
    func armWake(at instant: Int)
    /// Tell every watcher.
    func publish(_ event: WatchEvent)
    /// Answer the request parked on connection `id` (a tag wait, a `calendar add` being read).
    func answer(_ id: Int, _ response: Response)
    /// The calendars' folders now: watch any not yet watched.
    func watchCalendarFolders(_ folders: Set<String>)
    /// From any thread: a chime's `--unless` command ended (`skip` when it exited 0).
    var chimeChecked: @Sendable (_ key: String, _ skip: Bool, _ detail: String) -> Void { get }
    /// What the machine decided, as values, before `Effects` carries it out: a journal of the
    /// day (a replay of the same inputs decides the same).
    func decided(_ actions: [ClockAction])
}

extension Outlets {
    func decided(_ actions: [ClockAction]) {}
}

/// The watchers of changes (`status --watch` connections, the bedside keys): each subscribes once,
/// when it is built, and hears every event published after.
final class WatchFeed {
    private var subscribers: [(WatchEvent) -> Void] = []

    func subscribe(_ subscriber: @escaping (WatchEvent) -> Void) { subscribers.append(subscriber) }

    func publish(_ event: WatchEvent) {
        for subscriber in subscribers { subscriber(event) }
    }
}

/// The daemon's outlets, all on its event loop: the realtime wake timer (with a one-second retry
/// when it cannot be armed), the watch feed, the doorbell for parked answers and for what other
/// threads report, and the inotify watches on the calendars' folders.
final class LoopOutlets: Outlets {
    private let wake: LoopTimer
    private let retry: LoopTimer
    private let clock: any Clocks
    private let feed: WatchFeed
    private let doorbell: Doorbell
    private let watches: FolderWatches
    private let logger: Logger
    private var calendarFolders: Set<String> = []

    init(
        wake: LoopTimer, retry: LoopTimer, clock: any Clocks, feed: WatchFeed, doorbell: Doorbell,
        watches: FolderWatches, logger: Logger
    ) {
        self.wake = wake
        self.retry = retry
        self.clock = clock
        self.feed = feed
        self.doorbell = doorbell
        self.watches = watches
        self.logger = logger
        chimeChecked = { [doorbell] key, skip, detail in
            doorbell.post(.chimeChecked(key: key, skip: skip, detail: detail))
        }
    }

    func armWake(at instant: Int) {
        // The clock's instant, as the system clock reads it (a test clock is offset).
        if !wake.arm(atSystemInstant: clock.systemInstant(forWall: Double(instant))) { retry.arm(after: 1) }
    }

    func publish(_ event: WatchEvent) { feed.publish(event) }

    /// Through the doorbell: the answer goes out on the loop's next turn, after what asked for it.
    func answer(_ id: Int, _ response: Response) { doorbell.post(.reply(connection: id, response)) }

    func watchCalendarFolders(_ folders: Set<String>) {
        for folder in folders.subtracting(calendarFolders) {
            do {
                try watches.watch(folder: folder, names: nil) { [doorbell] in
                    doorbell.post(.calendarFolderChanged(folder))
                }
                calendarFolders.insert(folder)
            } catch {
                logger.warning(
                    "calendars: cannot watch \(folder): \(error); restart reveilled after editing a calendar there")
            }
        }
    }

    let chimeChecked: @Sendable (String, Bool, String) -> Void
}
