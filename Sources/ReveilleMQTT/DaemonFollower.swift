import CReveilleShims
import FoundationEssentials
import Glibc
import ReveilleProtocol
import ReveilleSystem
import Synchronization

/// Follows the daemon's `watch` stream on a thread of its own (its reads block) and rings an
/// eventfd for the bridge's loop. When the daemon goes away it says so and tries again after 1,
/// 2, 4, then every 5 seconds. Nothing runs while all is quiet.
final class DaemonFollower: Sendable {
    enum Note: Sendable {
        case up
        case down
        case line(WatchLine)
    }

    private let notes = Mutex<[Note]>([])
    private let bell: Descriptor

    init() throws(SystemCallError) {
        bell = try Descriptor.open("eventfd", "the daemon's events") { RV_eventfd() }
    }

    /// The descriptor the loop polls.
    var descriptor: Int32 { bell.raw }

    func start(socketPath: String) {
        Threads.start("watch") { [self] in
            var delay: UInt32 = 1
            while true {
                if follow(socketPath: socketPath) {
                    post(.down)
                    delay = 1
                }
                sleep(delay)
                delay = min(delay * 2, 5)
            }
        }
    }

    /// One connection's life: true when it was watching before it ended.
    private func follow(socketPath: String) -> Bool {
        guard let client = try? ControlClient(path: socketPath), let reply = try? client.send(.watch), reply.ok else {
            return false
        }
        post(.up)
        while let bytes = try? client.readLine() {
            guard let line = try? JSONDecoder().decode(WatchLine.self, from: Data(bytes)) else { continue }
            post(.line(line))
        }
        return true
    }

    private func post(_ note: Note) {
        notes.withLock { notes in
            // A loop that fell behind gets the latest: its refresh reads the whole state anyway.
            if notes.count >= 256 { notes.removeFirst(notes.count - 255) }
            notes.append(note)
        }
        var one: UInt64 = 1
        _ = write(bell.raw, &one, 8)
    }

    /// What happened since the last call.
    func take() -> [Note] {
        var count: UInt64 = 0
        _ = read(bell.raw, &count, 8)
        return notes.withLock { notes in
            defer { notes.removeAll() }
            return notes
        }
    }
}
