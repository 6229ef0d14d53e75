import CReveilleShims
import Glibc
import Logging
import ReveilleProtocol
import ReveilleSystem

/// inotify watches on folders, read on the event loop. Editors and timedatectl replace files rather
/// than rewrite them, so the folder is watched, and a change is acted on 50 ms after the last event
/// (a writer has finished by then) through a timer, never by sleeping on the loop.
final class FolderWatches {
    private let loop: EventLoop
    private let logger: Logger
    private var watches: [(inotify: Descriptor, timer: LoopTimer)] = []
    /// One watch per folder: a folder asked for again gets another handler, not another descriptor.
    private var handlers: [String: [(names: Set<String>?, onChange: () -> Void)]] = [:]

    init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    deinit {
        for watch in watches {
            loop.unwatch(watch.inotify.raw)
            loop.unwatch(watch.timer.fd)
        }
    }

    /// Calls `onChange` after files named `names` in `folder` (nil: any file) are written, replaced or removed.
    func watch(folder: String, names: Set<String>?, _ onChange: @escaping () -> Void) throws {
        if handlers[folder] != nil {
            handlers[folder]?.append((names, onChange))
            return
        }
        let inotify = try Descriptor.open("inotify_add_watch", folder) { RV_inotify_watch_directory(folder) }
        let fd = inotify.raw
        let settle = try LoopTimer(.monotonic, logger: logger)
        var due: [Int] = []
        try loop.watch(fd) { [unowned self] _ in
            let changed = FolderWatches.changedNames(fd)
            let wanted = (handlers[folder] ?? []).indices.filter { index in
                let names = handlers[folder]![index].names
                return changed.contains { names?.contains($0) ?? true }
            }
            guard !wanted.isEmpty else { return }
            due = Array(Set(due + wanted)).sorted()
            settle.arm(after: 0.05)
        }
        do {
            try loop.watch(settle.fd) { [unowned self] _ in
                _ = settle.acknowledge()
                let now = due
                due = []
                // Taken before calling: a handler may let go of these watches (a policy reload).
                let calls = now.compactMap { handlers[folder]?[$0].onChange }
                for call in calls { call() }
            }
        } catch {
            loop.unwatch(fd)  // and the descriptor goes with `inotify`: no half-made watch stays
            throw error
        }
        handlers[folder] = [(names, onChange)]
        watches.append((inotify, settle))
    }

    /// Open inotify descriptors (one per folder), for `status`.
    var count: Int { watches.count }

    /// The names in the events waiting on an inotify descriptor.
    static func changedNames(_ fd: Int32) -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return names }
            var offset = 0
            // struct inotify_event: wd, mask, cookie (4 bytes each), len, then len bytes of name.
            while offset + 16 <= count {
                let length =
                    Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16
                    | Int(buffer[offset + 15]) << 24
                let name = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                names.append(String(decoding: name, as: UTF8.self))
                offset += 16 + length
            }
        }
    }
}
