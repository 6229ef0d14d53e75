import Logging
import ServiceLifecycle

/// Sleeps until the next thing to do — a ring, the end of a snooze, the longest ring — and has the
/// controller do it. It does not wake every second: the wake timer sleeps until the next instant,
/// wakes at once when the system clock is set or something changes, and at least once a minute
/// (to follow a change of the system's time zone).
struct Scheduler: Service {
    let controller: Controller
    let timer: WakeTimer
    let logger: Logger

    /// The longest sleep.
    static let maxSleepSeconds = 60.0

    func run() async throws {
        await withGracefulShutdownHandler {
            for await reason in timer.wakes {
                let now = controller.clock.now().timeIntervalSince1970
                let next = min(controller.tick(reason) ?? .infinity, now + Scheduler.maxSleepSeconds)
                timer.arm(systemInstant: controller.clock.systemInstant(forWall: next))
            }
        } onGracefulShutdown: {
            timer.stop()
        }
        controller.shutDown()
    }
}
