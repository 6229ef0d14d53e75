import FoundationEssentials
import Glibc
import ReveilleSystem
import CReveilleShims

/// Runs what waits (on the disk, on a helper process) on a thread of its own; what it returns
/// reaches the loop through the doorbell, as an event. One short-lived thread a job.
struct OffLoop: Sendable {
    let doorbell: Doorbell

    func run(_ name: String, _ work: @escaping @Sendable () -> LoopEvent) {
        Threads.start(name) { [doorbell] in
            let event = work()
            // What the job freed goes back to the system: glibc keeps a thread's arena after the
            // thread ends, and a calendar read leaves megabytes free in it for the daemon's life.
            _ = RV_malloc_trim()  // 1 when some was released: nothing to act on
            doorbell.post(event)
        }
    }
}
