import Foundation

/// Runs what waits (on the disk, on a helper process) on a thread of its own; what it returns
/// reaches the loop through the doorbell, as an event. One short-lived thread a job.
struct OffLoop: Sendable {
    let doorbell: Doorbell

    func run(_ name: String, _ work: @escaping @Sendable () -> LoopEvent) {
        let thread = Thread { [doorbell] in doorbell.post(work()) }
        thread.name = name
        thread.start()
    }
}
