import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol

/// SIGHUP: reveille.toml read again. A file that does not load is refused and the running
/// settings stay (`status` says so); one that loads is applied by starting again in place, unless
/// it weakens a committed ring (`AlarmClock.settingsMustWait`): then it waits until after that
/// ring, looked at again after every tick of the machine, and `status` and the log say so.
final class SettingsReload {
    private let options: DaemonOptions
    private let controller: Controller
    private let notes: DaemonNotes
    private let loop: EventLoop
    private let logger: Logger
    /// The ring terms of the file that waits for a committed ring.
    private var waiting: RingTerms?
    /// The daemon stops to start again in place with the file.
    private(set) var requested = false

    init(options: DaemonOptions, controller: Controller, notes: DaemonNotes, loop: EventLoop, logger: Logger) {
        self.options = options
        self.controller = controller
        self.notes = notes
        self.loop = loop
        self.logger = logger
    }

    /// SIGHUP came.
    func signalled() {
        do {
            var settings = try Settings.load(path: options.paths.settingsFile)
            options.flags.apply(to: &settings)
            notes.settingsRejected = nil
            let after = DaemonOptions(paths: options.paths, settings: settings).ringTerms
            let now = controller.now()
            if let why = controller.view.settingsMustWait(from: options.ringTerms, to: after, now: now.instant) {
                waiting = after
                notes.settingsWaiting =
                    "the new reveille.toml waits (since \(now.date) \(now.time.hoursAndMinutes)): \(why)"
                logger.notice("received SIGHUP: reveille.toml loads, but it waits: \(why)")
                return
            }
            logger.notice("received SIGHUP: reveille.toml loads; starting again in place to apply it")
            restart()
        } catch {
            let since = controller.now()
            notes.settingsRejected =
                "\(error) (since \(since.date) \(since.time.hoursAndMinutes)); the settings of the start stay in use"
            logger.error("received SIGHUP: \(error); the running settings stay")
        }
    }

    /// After each turn of the loop: a file that waited applies once nothing committed stands, as of
    /// the last instant the machine looked at (a clock that moved onto the ring before the machine
    /// looked must not let the file in ahead of the ring).
    func afterTick() {
        guard let after = waiting else { return }
        guard controller.view.settingsStillWait(from: options.ringTerms, to: after, now: controller.nowSeconds()) == nil
        else { return }
        logger.notice("the committed ring is over: applying the reveille.toml that waited; starting again in place")
        restart()
    }

    private func restart() {
        waiting = nil
        requested = true
        loop.stop()
    }
}

extension DaemonOptions {
    /// The rings' limits these settings give.
    var ringPolicy: RingPolicy {
        RingPolicy(
            maxRingSeconds: ringTerms.maxRingSeconds, wakeCheckWaitSeconds: wakeCheckSeconds,
            earlyDismissSeconds: earlyDismissMinutes * 60)
    }

    /// What commitment compares of these settings.
    var ringTerms: RingTerms {
        RingTerms(
            maxRingSeconds: maxRingMinutes * 60, wakeCheckWaitSeconds: wakeCheckSeconds,
            graceSeconds: graceMinutes * 60,
            readerConfigured: nfcDevice != nil)
    }
}
