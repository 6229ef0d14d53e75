import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleInput
import ReveilleProtocol
import ReveilleSystem

/// Buttons and keypads at the bed (docs/guide/devices.md, "Buttons, keypad and voice"): evdev devices read on
/// the event loop (they never block), their keys turned into intents by `BedsideKeypad` (core),
/// and those carried out through the machine as `reveille snooze` and `reveille dismiss` would
/// be, with the outcome said aloud.
///
/// - Devices are the configured files, or every `eventN` in the input folder that reports a
///   mapped key. A device that is missing or goes away is picked up again when its folder
///   changes (inotify): udev creates the node, and the `by-id`/`by-path` links, on plug-in.
/// - While a session is active every device is grabbed (EVIOCGRAB), so that digits typed to
///   dismiss do not reach a console; a grab that fails is logged, never fatal.
///
/// Confined to the loop's thread, like `Controller`.
final class BedsideControls {
    struct Configuration {
        /// Device files; nil: find them in `discoveryFolder`.
        var devices: [String]?
        var discoveryFolder: String
        /// The daemon's root: a folder that does not exist yet is watched through its nearest
        /// existing parent, but never through the root itself (whose files change all the time).
        var root: String
        var keyMap: KeyMap
        var longPressSeconds: Double
        var answerTimeoutSeconds: Double
        var sayTimeWhenIdle: Bool
    }

    private let configuration: Configuration
    private let loop: EventLoop
    private let controller: Controller
    private let feed: WatchFeed
    private let logger: Logger
    private let watches: FolderWatches
    private let timer: LoopTimer
    private var keypad: BedsideKeypad
    /// Open devices, by path.
    private var open: [String: InputDevice] = [:]
    /// Why a configured device is not open, by path.
    private var missing: [String: InputState] = [:]
    private var watchedFolders: Set<String> = []
    private var grabbed = false

    init(
        configuration: Configuration, loop: EventLoop, controller: Controller, feed: WatchFeed, logger: Logger
    ) throws {
        self.configuration = configuration
        self.loop = loop
        self.controller = controller
        self.feed = feed
        self.logger = logger
        self.watches = FolderWatches(loop: loop, logger: logger)
        self.timer = try LoopTimer(.monotonic, logger: logger)
        self.keypad = BedsideKeypad(
            longPressSeconds: configuration.longPressSeconds, answerTimeoutSeconds: configuration.answerTimeoutSeconds)
        try loop.watch(timer.fd) { [unowned self] _ in
            _ = timer.acknowledge()
            carry(keypad.expire(now: controller.clock.elapsed(), phase: phase), key: nil)
            armTimer()
        }
        feed.subscribe { [unowned self] event in
            switch event {
            case .session, .wakeCheck: sessionChanged()
            default: break
            }
        }
    }

    deinit {
        for device in open.values { loop.unwatch(device.fd) }
        loop.unwatch(timer.fd)
    }

    /// Opens what is there and watches for what is not.
    func start() {
        if let devices = configuration.devices {
            logger.info("input: \(devices.isEmpty ? "no devices configured" : devices.joined(separator: ", "))")
        } else {
            logger.info("input: any device in \(configuration.discoveryFolder) with a mapped key")
        }
        rescan()
    }

    /// Every device, open or not, for `status` and `doctor`.
    var states: [InputState] {
        let present = open.values.map { InputState(path: $0.path, name: $0.name, condition: .ok, detail: "") }
        return (present + missing.values).sorted { $0.path < $1.path }
    }

    /// The session changed: grab the devices while one is active, let go and forget the keys
    /// typed when it ends.
    func sessionChanged() {
        let active = phase != .idle
        if !active { keypad.reset() }
        guard active != grabbed else { return }
        grabbed = active
        for device in open.values { grab(device, active) }
        armTimer()
    }

    private var phase: RingPhase {
        controller.view.keypadPhase(now: controller.nowSeconds())
    }

    // MARK: Devices

    private func rescan() {
        // A node removed or replaced (udev, on re-plug) while open: read the new one.
        for device in open.values where device.isReplaced { detach(device, "its device file was replaced") }
        let wanted = configuration.devices ?? InputDevice.eventDevices(in: configuration.discoveryFolder)
        for path in wanted where open[path] == nil { attach(path, configured: configuration.devices != nil) }
        let folders =
            configuration.devices.map { $0.map { PathName.folder($0) } }
            ?? [configuration.discoveryFolder]
        for folder in Set(folders) { watch(folder) }
    }

    /// Watches `folder`, or its nearest existing parent until it exists (a Pi with no input
    /// device has no /dev/input, and /dev is watched until it appears).
    private func watch(_ folder: String) {
        var target = folder
        while !FileManager.default.fileExists(atPath: target), target != "/" {
            target = PathName.folder(target)
        }
        let root = PathName.standardized(configuration.root)
        guard target != "/", PathName.standardized(target) != root, !watchedFolders.contains(target) else {
            return
        }
        do {
            try watches.watch(folder: target, names: nil) { [unowned self] in rescan() }
            watchedFolders.insert(target)
        } catch {
            logger.warning("input: cannot watch \(target) for devices plugged in: \(error); restart reveilled after")
        }
    }

    private func attach(_ path: String, configured: Bool) {
        let device: InputDevice
        do {
            device = try InputDevice(path: path)
        } catch {
            guard configured else { return }
            // A device that was open and went away stays "unplugged", with its name, until it is
            // back: its node being gone too (udev removes it) says nothing new.
            if error.isAbsent, missing[path]?.condition == .unplugged { return }
            let state = InputState(
                path: path, name: "", condition: error.isAbsent ? .absent : .failing,
                detail: error.isAbsent ? "picked up when it appears" : error.reason)
            if missing[path] != state {
                missing[path] = state
                logger.log(level: error.isAbsent ? .info : .warning, "input: \(state)")
                feed.publish(.input(state))
            }
            return
        }
        if !configured, device.isEvdev, !device.reportsAny(of: configuration.keyMap.codes) { return }
        do {
            try loop.watch(device.fd) { [unowned self] _ in read(device) }
        } catch {
            logger.error("input: cannot watch \(path): \(error)")
            return
        }
        open[path] = device
        missing[path] = nil
        let state = InputState(path: path, name: device.name, condition: .ok, detail: "")
        logger.notice(
            "input: \(state)\(device.isEvdev ? "" : " (not an evdev device: read as a stream of input events)")")
        feed.publish(.input(state))
        if grabbed { grab(device, true) }
    }

    private func detach(_ device: InputDevice, _ why: String) {
        loop.unwatch(device.fd)
        open[device.path] = nil
        let state = InputState(
            path: device.path, name: device.name, condition: .unplugged, detail: "\(why); picked up when it returns")
        // A found device that goes away is forgotten; a configured one is listed as unplugged.
        if configuration.devices != nil { missing[device.path] = state }
        logger.warning("input: \(state)")
        feed.publish(.input(state))
    }

    private func grab(_ device: InputDevice, _ on: Bool) {
        if let why = device.grab(on) {
            let level: Logger.Level = device.isEvdev ? .warning : .debug
            logger.log(level: level, "input: cannot \(on ? "grab" : "release") \(device.name): \(why)")
        }
    }

    // MARK: Keys

    private func read(_ device: InputDevice) {
        switch device.read() {
        case .gone(let why):
            detach(device, why)
        case .events(let events):
            for event in events where event.type == InputEvent.key {
                // Keys with no meaning here are ignored, as are other event types.
                guard let key = configuration.keyMap[event.code] else { continue }
                let motion: KeyMotion =
                    switch event.value {
                    case 0: .release
                    case 2: .autorepeat
                    default: .press
                    }
                let intents = keypad.handle(key, motion, phase: phase, now: controller.clock.elapsed())
                carry(intents, key: KeyNames.name(event.code))
            }
            armTimer()
        }
    }

    private func armTimer() {
        guard let deadline = keypad.deadline else {
            timer.arm(after: 0)
            return
        }
        timer.arm(after: max(0.001, deadline - controller.clock.elapsed()))
    }

    /// Carries the keypad's intents out through the machine, saying the outcome.
    private func carry(_ intents: [KeypadIntent], key: String?) {
        let by = key.map { " (\($0))" } ?? ""
        for intent in intents {
            switch intent {
            case .snooze:
                switch controller.handle(.snoozeKey).ring {
                case .success(let session):
                    logger.info("input: snoozed alarm \(session.settings.name)\(by)")
                case .failure(let refusal):
                    logger.info("input: snooze refused\(by): \(refusal.message)")
                }
            case .beginAnswering, .repeatProblem:
                if intent == .beginAnswering { logger.info("input: answering begins\(by)") }
                if case .failure(let refusal) = controller.handle(.problemKey).ring {
                    logger.info("input: no problem to say: \(refusal.message)")
                }
            case .typed(let digits):
                logger.debug("input: typed \(digits.isEmpty ? "nothing" : digits)")
                // Typing keeps the sound lowered, as `reveille dismiss` does while it waits.
                controller.handle(.problem)
            case .submit(let value):
                switch controller.handle(.answerKey(value)) {
                case .ring(.success(let session), .dismissed?):
                    logger.info("input: alarm \(session.settings.name) dismissed by the answer typed\(by)")
                case .ring(.success(let session), .rightWithMoreToGo?):
                    logger.info("input: right answer typed, \(session.problemsLeft) more to go")
                case .ring(.failure(let refusal), _):
                    logger.info("input: answer refused: \(refusal.message)")
                default:
                    logger.info("input: wrong answer typed (\(value))")
                }
            case .cleared:
                logger.info(
                    "input: the digits typed were cleared after \(Int(configuration.answerTimeoutSeconds)) s without a key"
                )
            case .confirmAwake:
                if case .failure(let refusal) = controller.handle(.awake(by: "key \(key ?? "?")")).ring {
                    logger.info("input: wake-up check not answered\(by): \(refusal.message)")
                }
            case .sayTimeAndNext:
                feed.publish(.screenWake)
                guard configuration.sayTimeWhenIdle else { continue }
                controller.handle(.timeAndNext)
            case .chimeAgain:
                feed.publish(.screenWake)
                do {
                    guard let chime = controller.view.playedChime(key: nil) else { continue }
                    _ = try controller.chimeAgain(chime, after: "key \(key ?? "?")")
                    controller.say(Spoken.again(chime))
                } catch {
                    logger.error("input: the chime could not be kept for again: \(error)")
                }
            }
        }
    }
}
