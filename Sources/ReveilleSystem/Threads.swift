import CReveilleShims
import Glibc

/// A thread of its own for work that blocks (ALSA, libnfc, fanotify, a child process), started
/// detached with POSIX threads: Foundation's `Thread` would link the whole of Foundation.
public enum Threads {
    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps).
    /// Stops the process when no thread can be made: every caller is a part that cannot work without one.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(_ name: String, _ body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                RV_name_this_thread(box.name)
                box.body()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            fatalError("cannot start the \(name) thread: \(String(cString: strerror(result)))")
        }
    }
}
