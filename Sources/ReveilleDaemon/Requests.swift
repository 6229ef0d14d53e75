import FoundationEssentials
import Glibc
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// A request refused for a reason the client can act on.
struct Refusal: Error {
    let code: ErrorReply.Code
    let message: String

    init(_ code: ErrorReply.Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// One request, as a handler gets it: the command, with the rights it is served with (already
/// checked), who asked, and on which connection (nil: in-process).
struct Asked {
    let command: Command
    let role: Role
    let peer: Peer?
    let connection: Int?
    /// The paired browser the request came through, by its name (`web pair --name`), when it
    /// matters who answered (`apps approve` from a phone).
    var device: String? = nil
    /// It came through `reveille-web` (the page), which lowers its rights with a cap.
    var relayed = false
    /// The child a browser paired for them speaks as (`web pair --for`): the request is about
    /// that person's apps, not the connection's user.
    var person: String? = nil
    /// A schedule change, as the commitment gate judged it: its handler writes this edit, read on
    /// this day, and nothing it reads again (`Requests.serve`).
    var judged: Judged? = nil
}

/// A schedule change as the commitment gate judged it: the one `ScheduleEdit` the command makes,
/// and the one reading of the clock it was judged at. The gate and the handler are one path: the
/// handler writes `edit`, with `now`'s date for what "today" means.
struct Judged {
    let edit: ScheduleEdit
    let now: SpecNow
}

/// What a handler made of a request.
enum Handled {
    /// The answer, now.
    case answer(Response)
    /// Answered later through `Outlets.answer` (a tap, a file being read, a sound starting).
    case parked
    /// `status --watch`: the connection streams events from now on.
    case watching
}

/// One domain's requests (alarms, layers, tags, ...): a type given what it needs when it is built.
protocol RequestHandler: AnyObject {
    func handle(_ request: Asked) throws -> Handled
}

/// Every control request's one way in: the rights are checked here, once; the command goes to the
/// handler of its domain; a request that changed the schedule is followed by the machine's look at
/// the new one (`Controller.scheduleChanged`). Never throws: every failure is an error reply.
final class Requests {
    struct Handlers {
        var alarms: AlarmRequests
        var layers: LayerRequests
        var reports: ReportRequests
        var ringing: RingRequests
        var tags: TagRequests
        var apps: AppRequests
        var calendars: CalendarRequests
        var reminders: ReminderRequests
        var web: WebRequests
        var sound: SoundRequests
        var setup: SetupRequests
        var wifi: WifiRequests
        var screen: ScreenBacklight
    }

    let controller: Controller
    let handlers: Handlers
    private let logger: Logger

    init(controller: Controller, handlers: Handlers, logger: Logger) {
        self.controller = controller
        self.handlers = handlers
        self.logger = logger
    }

    /// Every handler, built from the daemon's parts: `Daemon.run` and the in-process tests build
    /// them the same way.
    convenience init(
        controller: Controller, store: Store, ring: RingEnvironment, outlets: any Outlets, apps: AppSupervisor?,
        bedside: BedsideControls?, notes: DaemonNotes, paths: Paths = Paths(root: "/"),
        setZone: SetupRequests.ZoneSetter? = nil, screen: ScreenBacklight? = nil, logger: Logger
    ) {
        let sounds = SoundCheck(audio: ring.audio)
        let web = WebRequests(store: store, clock: controller.clock, logger: logger)
        self.init(
            controller: controller,
            handlers: Handlers(
                alarms: AlarmRequests(
                    controller: controller, store: store, sounds: sounds, reader: ring.reader,
                    defaultVolume: ring.defaultVolume, defaultFadeInSeconds: ring.defaultFadeInSeconds, logger: logger),
                layers: LayerRequests(controller: controller, store: store, logger: logger),
                reports: ReportRequests(
                    controller: controller, store: store, ring: ring, apps: apps, bedside: bedside, notes: notes),
                ringing: RingRequests(controller: controller),
                tags: TagRequests(
                    controller: controller, store: store, reader: ring.reader, outlets: outlets, logger: logger),
                apps: AppRequests(
                    supervisor: apps, catalog: AppCatalog(paths: paths), publish: { [outlets] in outlets.publish($0) }),
                calendars: CalendarRequests(
                    controller: controller, store: store, sounds: sounds, outlets: outlets, logger: logger),
                reminders: ReminderRequests(controller: controller, store: store, sounds: sounds, logger: logger),
                web: web,
                sound: SoundRequests(
                    controller: controller, audio: ring.audio, sounds: sounds, defaultVolume: ring.defaultVolume,
                    folders: paths.soundFolders, logger: logger),
                setup: SetupRequests(
                    paths: paths, notes: notes, web: web, clock: controller.clock, setZone: setZone, logger: logger),
                wifi: WifiRequests(paths: paths, notes: notes, offLoop: controller.offLoop, logger: logger),
                // In-process tests drive no backlight.
                screen: screen
                    ?? ScreenBacklight(
                        paths: paths, settings: .none, controller: controller, feed: WatchFeed(), notes: notes,
                        logger: logger)),
            logger: logger)
    }

    /// Serves `command` for a peer with `role`; `refusal` words a refusal of rights.
    func serve(
        _ command: Command, role: Role, peer: Peer? = nil, connection: Int? = nil, device: String? = nil,
        person: String? = nil, relayed: Bool = false, refusal: () -> String
    ) -> Handled {
        guard role >= command.requiredRole else { return .answer(.failure(.forbidden, refusal())) }
        // A browser sees nothing about the household's people unless it is an admin's; a phone
        // paired for a child, that child's own requests (their handler keeps to them).
        if relayed, role < .admin, command.forAdminBrowsersOnly, !(person != nil && command == .appRequests) {
            return .answer(.failure(.forbidden, Command.notAnAdminsBrowser))
        }
        do {
            try command.checkRanges()
        } catch {
            return .answer(Requests.response(to: error, for: command, logger: logger))
        }
        if case .watch = command { return .watching }
        // The instant the change is made at: `--in 1s` computed in one second must not find the
        // machine already past its ring because the request ended in the next. A schedule change
        // is judged and written as of this one reading.
        let asOf = controller.clock.instant()
        var judged: Judged?
        if command.changesSchedule {
            let now = controller.specNow(at: asOf)
            do {
                judged = try ScheduleEdit.of(command, today: now.date).map { Judged(edit: $0, now: now) }
            } catch {
                return .answer(Requests.response(to: error, for: command, logger: logger))
            }
            if let committed = CommitmentGate(controller: controller).refusal(for: command, judged) {
                logger.notice("\(command.name) refused: \(committed.error?.message ?? "")")
                return .answer(committed)
            }
        }
        let handled = Requests.answering(command, logger: logger) {
            var asked = Asked(command: command, role: role, peer: peer, connection: connection, relayed: relayed)
            asked.judged = judged
            asked.person = person
            switch command {
            case .appAnswer, .awake: asked.device = device.flatMap { handlers.web.deviceName(token: $0) }
            default: break
            }
            return try handler(for: command).handle(asked)
        }
        if case .answer(let response) = handled, response.ok, command.changesSchedule {
            controller.scheduleChanged(asOf: asOf, after: command.name)
        }
        return handled
    }

    private func handler(for command: Command) -> any RequestHandler {
        switch command {
        case .alarmList, .alarmAdd, .alarmEdit, .alarmRemove, .alarmSetEnabled: handlers.alarms
        case .ruleList, .ruleAdd, .ruleRemove, .ruleEdit, .overrideList, .overrideAdd, .overrideRemove,
            .overrideEdit, .pause, .resume:
            handlers.layers
        // `watch` is answered in `serve`: the reports' handler refuses it as misrouted.
        case .status, .next, .history, .stats, .watch: handlers.reports
        case .snooze, .problem, .answer, .alarmTest, .awake, .unlock, .dismissNext: handlers.ringing
        case .tagAdd, .tagList, .tagRemove, .tagTest: handlers.tags
        case .appsStatus, .appsOverview, .appCheck, .appGrant, .appStart, .appList, .appPut, .appRemove, .appExport,
            .appCatalog,
            .appAsk, .appRequests, .appAnswer, .appsHousehold, .appsFromHub:
            handlers.apps
        case .calendarAdd, .calendarList, .calendarRemove, .calendarShow, .calendarFetchNow: handlers.calendars
        case .reminderList, .reminderAdd, .reminderEdit, .reminderRemove, .remindersSwitch, .chimeAgain:
            handlers.reminders
        case .webPair, .webRedeem, .webDevices, .webUnpair, .webServing: handlers.web
        case .firstSetup: handlers.setup
        case .wifiScan, .wifiJoin: handlers.wifi
        case .screenLight: handlers.screen
        case .soundTest, .soundDevices, .soundList, .soundStop: handlers.sound
        }
    }

    // MARK: Parked requests, for the control server

    /// The rights of the paired web device whose token this is; nil when none has it.
    func webDevice(token: String) -> WebDeviceRights? { handlers.web.rights(token: token) }

    /// The earliest instant (monotonic) a parked request times out at.
    var parkedDeadline: Double? { handlers.tags.wait?.deadline }

    /// Answers the parked requests whose time ran out by `now` (monotonic).
    func expire(now: Double) {
        if let wait = handlers.tags.wait, wait.deadline <= now { handlers.tags.endWait() }
    }

    /// Connection `id` went away: what it waited for is let go.
    func connectionLeft(_ id: Int) {
        if handlers.tags.wait?.connection == id { handlers.tags.endWait(answer: false) }
    }

    /// Runs `body`, turning what it throws into an error reply.
    static func answering(_ command: Command, logger: Logger, _ body: () throws -> Handled) -> Handled {
        do {
            return try body()
        } catch {
            return .answer(response(to: error, for: command, logger: logger))
        }
    }

    /// The error reply for what a handler threw.
    static func response(to error: any Error, for command: Command, logger: Logger) -> Response {
        switch error {
        case let error as InputError: return .failure(.invalid, error.message)
        case let error as Refusal: return .failure(error.code, error.message)
        case let error as RingRefusal: return .failure(.refused, error.message)
        default:
            logger.error("'\(command.name)' failed: \(error)")
            return .failure(.internal, "could not \(command.name): \(error)")
        }
    }
}

extension Handled {
    /// The response, when it was answered at once.
    var response: Response? {
        if case .answer(let response) = self { response } else { nil }
    }
}

/// The refusal for a command routed to a handler that does not serve it: a mistake in `Requests`.
func misrouted(_ command: Command) -> Refusal {
    Refusal(.internal, "'\(command.name)' reached the wrong handler: a routing mistake in the daemon")
}

/// What a sound file named in a request must be, checked before it is stored or played.
struct SoundCheck {
    let audio: any AudioOutput

    /// Refuses a sound file the daemon could not play, saying why and what to do.
    ///
    /// The daemon reads what its own user may read, which is more than a household member may
    /// (its state folder, say). So a file named in a request must be one everyone may read, in
    /// folders everyone may search (`PublicFile`), and every other case gets one answer: the
    /// answers cannot tell what exists where the asker cannot look.
    func check(_ sound: String, option: String = "--sound") throws {
        try checkPublic(sound, option: option)
        if let problem = audio.problem(withSound: sound) {
            throw InputError("\(option): cannot play \(Sanitized.line(problem)); use a WAV, FLAC, Ogg or MP3 file")
        }
    }

    /// The first half of `check`: an absolute path to a file everyone may read.
    func checkPublic(_ sound: String, option: String) throws {
        guard sound.hasPrefix("/") else {
            throw InputError("\(option) \"\(Sanitized.line(sound))\": give the file's absolute path")
        }
        switch PublicFile.check(sound) {
        case .regular: break
        case .missing: throw InputError("\(option) \(Sanitized.line(sound)): no such file")
        case .notRegular: throw InputError("\(option) \(Sanitized.line(sound)): not a file")
        case .notPublic:
            throw InputError(
                "\(option) \(Sanitized.line(sound)): not a file everyone may read; make it and its folders readable by others (chmod o+r, o+x) or put it in /usr/local/share/sounds"
            )
        }
    }
}

extension Store {
    /// The alarm `id`, or the refusal that names what to do.
    func existingAlarm(_ id: Int) throws -> Alarm {
        guard let alarm = try alarm(id: id) else { throw Store.noAlarm(id) }
        return alarm
    }

    static func noAlarm(_ id: Int) -> Refusal {
        Refusal(.notFound, "no alarm #\(id); 'reveille alarm list' shows the ids")
    }
}
