import Logging

/// Sleeps until the next thing to do — a ring, the end of a snooze, the longest ring — and has the
/// controller do it, on the wake timer's thread. It does not wake every second: the timer sleeps
/// until the next instant, wakes at once when the system clock is set or something changes, and at
/// least once a minute (to follow a change of the system's time zone).
final class Scheduler: Sendable {
    let controller: Controller
    let timer: WakeTimer

    /// The longest sleep.
    static let maxSleepSeconds = 60.0

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
