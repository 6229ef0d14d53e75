import Logging

/// Sleeps until the next thing to do — a ring, the end of a snooze, the longest ring — and has the
/// controller do it, on the wake timer's thread. Nothing polls: the timer sleeps until the next
/// instant, and wakes early when the system clock is set, when /etc changes (the time zone link),
/// or when a request changes something; at the latest after an hour, as a safety net.
final class Scheduler: Sendable {
    let controller: Controller
    let timer: WakeTimer

    /// The longest sleep.
    static let maxSleepSeconds = 3600.0

    init(controller: Controller, timer: WakeTimer) {
        self.controller = controller
        self.timer = timer
    }

    func start() {
        timer.start { [controller, timer] reason in
            let now = controller.clock.now().timeIntervalSince1970
            let next = min(controller.tick(reason) ?? .infinity, now + Scheduler.maxSleepSeconds)
            timer.arm(systemInstant: controller.clock.systemInstant(forWall: next))
        }
    }

    func stop() {
        timer.stop()
    }
}
