import CReveilleShims
import Foundation
import Glibc
import Logging

/// Calls `onChange` when a file named `name` in `folder` is written, replaced or removed: an
/// inotify watch on the folder (editors replace files rather than rewrite them), read on a
/// thread of its own that sleeps until something happens.
final class PolicyWatcher: Sendable {
    private let fd: Int32

    init?(folder: String) {
        fd = RV_inotify_watch_directory(folder)
        if fd < 0 { return nil }
    }

    func start(name: String, onChange: @escaping @Sendable () -> Void) {
        let thread = Thread { [fd] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, -1) > 0 else { continue }
                var touched = false
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    guard count > 0 else { break }
                    var offset = 0
                    while offset + 16 <= count {
                        let length =
                            Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8
                            | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                        let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                        if String(decoding: nameBytes, as: UTF8.self) == name { touched = true }
                        offset += 16 + length
                    }
                }
                if touched {
                    usleep(50_000)  // let a writer finish
                    onChange()
                }
            }
        }
        thread.name = "policy-watch"
        thread.start()
    }
}
