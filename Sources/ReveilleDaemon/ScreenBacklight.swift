import Glibc
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// The display's backlight (hardware.md, "The screen's backlight"): `Backlight` decides from what
/// the kiosk's page says it shows (`screenLight`), whether an alarm needs the sleeper, and the
/// hour; this writes the device's `brightness` file (/sys/class/backlight/NAME, group video by
/// the package's udev rule) when the value changes. Rings are followed from the watch feed, so a
/// ring lights the screen even when the page is gone. A write is a few bytes to sysfs, on the loop.
final class ScreenBacklight: RequestHandler {
    private let controller: Controller
    private let notes: DaemonNotes
    private let settings: Settings.Screen
    private let logger: Logger
    /// The device's folder and its maximum; nil: none (or `backlight = "none"`).
    private let device: (name: String, folder: String, maximum: Int)?
    /// What the page says it shows; nil until it says.
    private var page: ScreenLight?
    private var written: Int?
    private var failed = false

    init(
        paths: Paths, settings: Settings.Screen, controller: Controller, feed: WatchFeed, notes: DaemonNotes,
        logger: Logger
    ) {
        self.controller = controller
        self.notes = notes
        self.settings = settings
        self.logger = logger
        device =
            settings.backlightOff ? nil : Self.find(paths.system("/sys/class/backlight"), named: settings.backlight)
        if let device {
            logger.info("screen: backlight \(device.name) (0 to \(device.maximum))")
        } else if settings.backlight != nil {
            logger.warning(
                "screen: no backlight \(settings.backlight ?? "") in /sys/class/backlight; [screen] backlight names one"
            )
        }
        feed.subscribe { [unowned self] event in
            switch event {
            case .session, .wakeCheck: apply()
            default: break
            }
        }
        apply()
    }

    /// The named device, or the first there is; its `max_brightness` read.
    static func find(_ folder: String, named name: String?) -> (name: String, folder: String, maximum: Int)? {
        let names = name.map { [$0] } ?? Folder.names(folder)
        for name in names {
            let path = folder + "/" + name
            guard let text = RegularFile.head(path + "/max_brightness", count: 32),
                let maximum = Int(String(decoding: text, as: UTF8.self).split(separator: "\n").first ?? ""), maximum > 0
            else { continue }
            return (name, path, maximum)
        }
        return nil
    }

    func handle(_ request: Asked) throws -> Handled {
        guard case .screenLight(shows: let light) = request.command else { throw misrouted(request.command) }
        // The kiosk's page is relayed with no device; a paired phone has one.
        guard request.device == nil else { throw Refusal(.forbidden, "only the clock's own screen sets its light") }
        page = light
        apply()
        return .answer(Response())
    }

    /// Sets the brightness the rules say now, if it changed.
    func apply() {
        let phase = controller.view.keypadPhase(now: controller.nowSeconds())
        let hour = controller.specNow().time.secondsOfDay / 3600
        let level = Backlight.level(page: page, needsSleeper: phase == .ringing || phase == .checking, hour: hour)
        guard let device else { return }
        let value = Backlight.brightness(
            level, maximum: device.maximum, dayPercent: settings.dayPercent, nightPercent: settings.nightPercent)
        notes.backlight = "\(device.name): \(level.rawValue), \(value) of \(device.maximum)"
        guard value != written else { return }
        let path = device.folder + "/brightness"
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
        let bytes = Array("\(value)\n".utf8)
        let done = fd >= 0 && write(fd, bytes, bytes.count) == bytes.count
        let error = errno
        if fd >= 0 { close(fd) }
        guard done else {
            if !failed {
                let hint =
                    error == EACCES
                    ? "; the package's udev rule gives it to the video group, which reveilled's user is in" : ""
                logger.warning(
                    "screen: the backlight cannot be set (\(path): \(String(cString: strerror(error))))\(hint)")
            }
            failed = true
            return
        }
        failed = false
        written = value
        logger.info("screen: backlight \(level.rawValue) (\(value) of \(device.maximum))")
    }
}
