import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Synchronization

/// A request refused for a reason the client can act on.
struct Refusal: Error {
    let code: ErrorReply.Code
    let message: String

    init(_ code: ErrorReply.Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// The devices and limits the ring sessions work with.
public struct RingEnvironment: Sendable {
    public var audio: any AudioOutput
    public var reader: any TagReader
    public var policy: RingPolicy
    /// An occurrence found late (daemon down, clock jump) still rings if it is at most this old.
    public var graceSeconds: Int
    /// Folder of hook executables.
    public var hooksDirectory: String
    /// Volume and fade-in of alarms added without them (reveille.toml's [audio]).
    public var defaultVolume: Int
    public var defaultFadeInSeconds: Int
    /// Says the problem and what the buttons did.
    public var voice: any Voice

    public init(
        audio: any AudioOutput, reader: any TagReader = NoTagReader(), policy: RingPolicy = RingPolicy(),
        graceSeconds: Int = 15 * 60, hooksDirectory: String, defaultVolume: Int = Alarm.defaultVolume,
        defaultFadeInSeconds: Int = Alarm.defaultFadeInSeconds, voice: any Voice = SilentVoice()
    ) {
        self.voice = voice
        self.audio = audio
        self.reader = reader
        self.policy = policy
        self.graceSeconds = graceSeconds
        self.hooksDirectory = hooksDirectory
        self.defaultVolume = defaultVolume
        self.defaultFadeInSeconds = defaultFadeInSeconds
    }
}

/// Carries out control requests and the clock machine's actions against the store and the
/// devices: the edge of the daemon. Every rule lives in `AlarmClock` (ReveilleCore); this class
/// reads the clock, does the I/O the machine asks for, and answers requests.
///
/// Confined to the event loop's thread (docs/ARCHITECTURE.md): no locks, not `Sendable`. Other
/// threads reach it through the loop's doorbell.
public final class Controller {
    let store: Store
    let clock: any WallClock
    let startedAt: Date
    let logger: Logger
    let ring: RingEnvironment
    let hooks: HookRunner
    /// Where the zone's rules come from, read again when they may have changed.
    let zoneSource: ZoneSource
    /// The one decision-maker.
    var machine: AlarmClock
    /// The zone, for the app guard's thread.
    let sharedZone: SharedZone
    /// A `tag add` or `tag test` waiting for a tap, which takes the next tag the reader sees.
    var tagWait: TagWait?
    /// reveille.toml refused at a reload (SIGHUP), with since when.
    var settingsRejection: String?
    /// Until when (monotonic seconds) a `sound test` plays, for `sound stop`.
    var soundTestUntil = 0.0
    var webPairing = WebPairing()
    /// Holiday calendars, read at start and again when their files change.
    let calendars: Calendars
    /// Where what waits runs (calendar reads); nil: right here, for in-process tests.
    let offLoop: OffLoop?
    /// A calendar read that came in just before a ring: taken at the ring's tick, after it.
    var calendarsHeld: [Calendars.Entry]?
    /// The app policy and its enforcement; set once at start.
    var appSupervisor: AppSupervisor?
    /// The buttons and keypads; set once at start.
    var bedside: BedsideControls?
    /// Said in `status` after a start that restored the state from its backup.
    var stateRestored: String?
    /// The instant the wake timer was last armed at (wall-clock seconds).
    var armedWake: Int?
    /// Arms the wake timer at a wall-clock instant (set by the daemon).
    var onWake: (Int) -> Void = { _ in }
    /// The calendars were read again: their folders may need watching (set by the daemon).
    var onCalendarsChanged: () -> Void = {}
    /// Tells watchers what changed (set by the control server).
    var onPublish: (WatchEvent) -> Void = { _ in }
    /// Hands a `--unless` command's outcome (chime key, exited 0, how it ended) back to the loop,
    /// from the thread that ran it (set by the daemon).
    var reportChimeCheck: @Sendable (String, Bool, String) -> Void = { _, _, _ in }
    /// Answers a parked request (a tag wait) on connection `id` (set by the control server).
    var deliver: (Int, Response) -> Void = { _, _ in }

    init(
        store: Store, clock: any WallClock, zone: ZoneSource,
        calendarCache: String = NSTemporaryDirectory() + "reveille-calendars",
        calendarFetchFolder: String = NSTemporaryDirectory() + "reveille-fetched-calendars",
        ring: RingEnvironment, offLoop: OffLoop? = nil, logger: Logger
    ) throws {
        self.store = store
        self.offLoop = offLoop
        self.clock = clock
        self.zoneSource = zone
        self.startedAt = clock.now()
        self.logger = logger
        self.ring = ring
        self.hooks = HookRunner(directory: ring.hooksDirectory, logger: logger)
        let zone = zone.load()
        let now = Int(clock.now().timeIntervalSince1970)
        let today = ZoneResolver(zone: zone).local(at: now).date
        calendars = Calendars(
            loader: CalendarLoader(
                cacheFolder: calendarCache, fetchFolder: calendarFetchFolder,
                reader: CalendarReader(helper: CalendarReader.besideDaemon()), logger: logger))
        // At start, before the loop runs: what is due now must know its holidays.
        if let reading = calendars.beginReading(try store.calendars(), today: today, zone: zone, now: now) {
            _ = calendars.install(calendars.loader.read(reading), zone: zone)
        }
        // As stored: the machine catches up first, then says what of the days gone by may go
        // (after a crash past midnight, the catch-up must still see yesterday's "off").
        let evaluatedThrough = try store.evaluatedThrough()
        var schedule = try store.scheduleState()
        schedule.holidays = calendars.holidays
        schedule.calendarChimes = calendars.chimes
        let lookBack = now - 8 * 86_400
        let stored = AlarmClock.Stored(
            evaluatedThrough: evaluatedThrough, activeSession: try store.activeSession(),
            handled: try store.history(since: now - 7 * 86_400).map {
                AlarmClock.Occurrence(alarmID: $0.settings.alarmID, instant: $0.scheduledAt)
            },
            lastSessionID: try store.lastSessionID(),
            handledChimes: Dictionary(try store.chimes(since: lookBack).map { ($0.key, $0.instant) }) { first, _ in
                first
            })
        sharedZone = SharedZone(zone)
        machine = AlarmClock(
            schedule: schedule, zone: zone,
            readerHealth: ring.reader.health, stored: stored,
            limits: AlarmClock.Limits(ring: ring.policy, graceSeconds: ring.graceSeconds))
    }

    /// The zone alarm times are in.
    var zone: Zone { machine.zone }

    // MARK: Events from the loop

    /// After a (re)start: a session that was ringing rings again at once; a snoozed one keeps its
    /// deadline and count; then what came due while the daemon was down.
    public func start() {
        carryOut(machine.start(now: clock.now().timeIntervalSince1970, monotonic: Controller.monotonic()))
    }

    /// The wake timer fired, the clock was set, or the test clock's check came round.
    func tick(clockWasSet: Bool = false) {
        carryOut(
            machine.tick(
                now: clock.now().timeIntervalSince1970, monotonic: Controller.monotonic(), clockWasSet: clockWasSet,
                clockSynchronized: clock.isSynchronized))
        if let held = calendarsHeld {
            calendarsHeld = nil
            calendarsRead(held)
        }
        if calendars.isStale(today: today()) { reloadCalendars() }
    }

    /// Something changed in a folder the zone's rules come from: read them again (the machine
    /// recomputes only when they differ).
    func zoneFolderChanged() {
        let before = zone
        carryOut(machine.zoneChanged(to: zoneSource.load(current: zone), now: nowSeconds()))
        if zone != before { reloadCalendars() }  // timed events fall on other local dates
        sharedZone.current = machine.zone
    }

    /// A chime's `--unless` command finished.
    func chimeChecked(key: String, skip: Bool, detail: String) {
        carryOut(machine.chimeChecked(key: key, skip: skip, detail: detail, now: nowSeconds()))
    }

    /// The reader's health changed.
    func readerHealthChanged(_ health: ReaderHealth) {
        carryOut(machine.readerHealthChanged(health, now: nowSeconds()))
    }

    /// Before exit: remember how far occurrences were handled, stop the sound and running hooks.
    public func shutDown() {
        carryOut(machine.shutDown())
        hooks.stopAll()
    }

    /// Seconds on the monotonic clock (CLOCK_MONOTONIC): what a clock jump does not move.
    static func monotonic() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    // MARK: Requests

    /// Answers one request from a peer with `role`. Never throws: every failure is an error reply.
    /// `sound test`, and `tag add`/`tag test` waiting for a tap, are answered by the control
    /// server, which parks them (see `ControlServer`).
    public func handle(_ operation: Command, role: Role, peer: Peer? = nil, refusal: () -> String) -> Response {
        guard role >= operation.requiredRole else {
            return .failure(.forbidden, refusal())
        }
        switch operation {
        case .soundDevices:
            var response = Response()
            response.devices = ring.audio.availableDevices()
            return response
        case .tagAdd, .tagTest, .tagList, .tagRemove:
            return reply(operation) { try tagOperation(operation) }
        case .appsStatus, .appCheck, .appGrant, .appStart:
            return reply(operation) { try appOperation(operation, peer: peer) }
        case .webPair, .webRedeem, .webDevices, .webUnpair:
            return reply(operation) { try webOperation(operation) }
        case .snooze:
            return sessionReply(machine.snooze(now: nowSeconds()), for: operation)
        case .problem:
            return sessionReply(machine.requestProblem(now: nowSeconds()), for: operation)
        case .answer(let value):
            return sessionReply(machine.answer(value, now: nowSeconds()), for: operation)
        case .alarmTest(let id):
            tick()  // what is due by the schedule rings first
            return sessionReply(machine.test(id, now: nowSeconds()), for: operation)
        case .soundStop:
            return stopSoundTest()
        default: break
        }
        // The instant the change is made at: `--in 1s` computed in one second must not find the
        // machine already past its ring because the request ended in the next.
        let asOf = clock.now().timeIntervalSince1970
        let response = reply(operation) { try perform(operation, role: role) }
        if response.ok && operation.changesSchedule { scheduleChanged(asOf: asOf, after: operation.name) }
        return response
    }

    /// The schedule in the store changed, as of `asOf`: the machine rings what was due by the old
    /// one first (`AlarmClock.scheduleChanged`), then takes the new.
    func scheduleChanged(asOf: Double, after what: String) {
        do {
            carryOut(
                machine.scheduleChanged(
                    try currentState(), now: asOf, monotonic: Controller.monotonic(),
                    clockSynchronized: clock.isSynchronized))
        } catch {
            logger.error("could not read the schedule after \(what): \(error)")
        }
    }

    /// Runs `body`, turning what it throws into an error reply.
    func reply(_ operation: Command, _ body: () throws -> Response) -> Response {
        do {
            return try body()
        } catch let error as InputError {
            return .failure(.invalid, error.message)
        } catch let error as Refusal {
            return .failure(error.code, error.message)
        } catch let error as RingRefusal {
            return .failure(.refused, error.message)
        } catch {
            logger.error("'\(operation.name)' failed: \(error)")
            return .failure(.internal, "could not \(operation.name): \(error)")
        }
    }

    private func perform(_ operation: Command, role: Role) throws -> Response {
        let today = self.today()
        switch operation {
        case .status:
            var response = Response()
            response.status = try status(role: role)
            return response
        case .alarmList:
            var response = Response()
            response.alarms = try alarmInfos()
            return response
        case .alarmAdd(let spec):
            return try addAlarm(spec)
        case .calendarAdd, .calendarList, .calendarRemove, .calendarShow:
            return try calendarOperation(operation)
        case .reminderList, .reminderAdd, .reminderEdit, .reminderRemove:
            return try reminderOperation(operation)
        case .alarmEdit(let id, let spec):
            return try editAlarm(id: id, spec)
        case .alarmRemove(let id):
            let alarm = try existingAlarm(id)
            guard try store.deleteAlarm(id: id) else { throw noAlarm(id) }
            logger.info("alarm \(alarm.name) removed")
            var response = Response(message: "removed alarm \(alarm.name)")
            response.warnings = stillRinging()
            return response
        case .alarmSetEnabled(let id, let enabled):
            var alarm = try existingAlarm(id)
            alarm.enabled = enabled
            _ = try store.update(alarm)
            logger.info("alarm \(alarm.name) \(enabled ? "enabled" : "disabled")")
            return try alarmResponse(
                alarm, "\(enabled ? "enabled" : "disabled") alarm \(alarm.name): \(schedule(of: alarm))")
        case .ruleList:
            var response = Response()
            response.rules = try store.scheduleState().rules.map(RuleInfo.init)
            return response
        case .ruleAdd(let alarmID, let days, let change):
            if let alarmID { _ = try existingAlarm(alarmID) }
            guard !days.isEmpty else { throw InputError("days: a rule needs at least one day") }
            let candidate = WeeklyRule(id: 0, alarmID: alarmID, days: days, change: change)
            let rule = try store.insertRule(candidate) { existing in
                try asConflict { () throws(InputError) in try LayerConflicts.check(candidate, against: existing) }
            }
            logger.info("rule #\(rule.id) added: \(rule.days) \(rule.change), \(rule.scopeDescription)")
            var response = Response(
                message: "added rule #\(rule.id): \(rule.days) \(rule.change), \(rule.scopeDescription)")
            response.rules = [RuleInfo(rule)]
            return response
        case .ruleRemove(let id):
            guard try store.deleteRule(id: id) else {
                throw Refusal(.notFound, "no rule #\(id); 'reveille rule list' shows the ids")
            }
            logger.info("rule #\(id) removed")
            return Response(message: "removed rule #\(id)")
        case .overrideList:
            var response = Response()
            // A past day's override may wait for the machine to judge that day to its end before
            // it is purged (see `currentState`); it is history already, not listed.
            response.overrides = try currentState().overrides.filter { $0.date >= today }.map(
                OverrideInfo.init)
            return response
        case .overrideAdd(let alarmID, let dateText, let change):
            if let alarmID { _ = try existingAlarm(alarmID) }
            let date = try CivilDate.parse(dateText, today: today)
            guard date >= today else { throw InputError("date \(date) is in the past (today is \(today))") }
            let candidate = DateOverride(id: 0, alarmID: alarmID, date: date, change: change)
            let override = try store.insertOverride(candidate) { existing in
                try asConflict { () throws(InputError) in try LayerConflicts.check(candidate, against: existing) }
            }
            logger.info("override #\(override.id) added: \(date) \(change), \(override.scopeDescription)")
            var response = Response(
                message: "added override #\(override.id): \(date) \(change), \(override.scopeDescription)")
            response.overrides = [OverrideInfo(override)]
            return response
        case .overrideRemove(let id):
            guard try store.deleteOverride(id: id) else {
                throw Refusal(.notFound, "no override #\(id); 'reveille override list' shows the ids")
            }
            logger.info("override #\(id) removed")
            return Response(message: "removed override #\(id)")
        case .pause(let untilText):
            guard let untilText else {
                try store.setMaster(.off)
                logger.notice("alarms paused until resumed")
                var response = Response(message: "alarms are off until 'reveille resume'")
                response.warnings = stillRinging()
                return response
            }
            let until = try CivilDate.parse(untilText, today: today)
            guard until > today else {
                throw InputError("--until \(until): must be after today (\(today)); alarms ring again from that date")
            }
            try store.setMaster(.pausedUntil(until))
            logger.notice("alarms paused until \(until)")
            var response = Response(
                message: "alarms paused; they ring again from \(until.weekday.displayName) \(until)")
            response.warnings = stillRinging()
            return response
        case .resume:
            try store.setMaster(.on)
            logger.notice("alarms resumed")
            return Response(message: "alarms are on")
        case .next(let days):
            guard (1...3660).contains(days) else { throw InputError("--days \(days): must be 1-3660") }
            var response = Response()
            response.schedule = try schedule(days: days)
            return response
        case .history(let days):
            var response = Response()
            response.history = try history(days: days)
            return response
        case .stats(let days):
            var response = Response()
            response.stats = try stats(days: days)
            return response
        case .ruleEdit(let id, let days, let change, let alarmID, let allAlarms):
            if let alarmID { _ = try existingAlarm(alarmID) }
            if let days, days.isEmpty { throw InputError("days: a rule needs at least one day") }
            let rule = try store.updateRule(id: id) { rule, existing throws in
                if let days { rule.days = days }
                if let change { rule.change = change }
                if let alarmID { rule.alarmID = alarmID }
                if allAlarms { rule.alarmID = nil }
                let candidate = rule
                try asConflict { () throws(InputError) in
                    try LayerConflicts.check(candidate, against: existing.filter { $0.id != id })
                }
            }
            guard let rule else { throw Refusal(.notFound, "no rule #\(id); 'reveille rule list' shows the ids") }
            logger.info("rule #\(rule.id) changed: \(rule.days) \(rule.change), \(rule.scopeDescription)")
            var response = Response(
                message: "changed rule #\(rule.id): \(rule.days) \(rule.change), \(rule.scopeDescription)")
            response.rules = [RuleInfo(rule)]
            return response
        case .overrideEdit(let id, let dateText, let change, let alarmID, let allAlarms):
            if let alarmID { _ = try existingAlarm(alarmID) }
            let date = try dateText.map { text in try CivilDate.parse(text, today: today) }
            if let date, date < today { throw InputError("date \(date) is in the past (today is \(today))") }
            let override = try store.updateOverride(id: id) { override, existing throws in
                if let date { override.date = date }
                if let change { override.change = change }
                if let alarmID { override.alarmID = alarmID }
                if allAlarms { override.alarmID = nil }
                let candidate = override
                try asConflict { () throws(InputError) in
                    try LayerConflicts.check(candidate, against: existing.filter { $0.id != id })
                }
            }
            guard let override else {
                throw Refusal(.notFound, "no override #\(id); 'reveille override list' shows the ids")
            }
            logger.info(
                "override #\(override.id) changed: \(override.date) \(override.change), \(override.scopeDescription)")
            var response = Response(
                message:
                    "changed override #\(override.id): \(override.date) \(override.change), \(override.scopeDescription)"
            )
            response.overrides = [OverrideInfo(override)]
            return response
        case .soundTest, .soundDevices, .soundStop, .alarmTest, .tagAdd, .tagTest, .tagList, .tagRemove, .appsStatus,
            .appCheck, .appGrant, .appStart, .snooze, .problem, .answer, .watch, .webPair, .webRedeem, .webDevices,
            .webUnpair:
            // Answered in `handle`, or parked by the control server: never here.
            throw Refusal(.internal, "'\(operation.name)' reached the wrong handler: a routing mistake in the daemon")
        }
    }

    // MARK: Helpers shared by the operations

    func now() -> (instant: Int, date: CivilDate, time: LocalTime) {
        let instant = nowSeconds()
        let local = ZoneResolver(zone: zone).local(at: instant)
        return (instant, local.date, local.time)
    }

    func today() -> CivilDate { now().date }

    /// The schedule state as stored, with the calendars' holidays and chimes. Reading it changes
    /// nothing: what the days gone by leave behind is purged when the machine says (`.purge`).
    func currentState() throws -> ScheduleState {
        var state = try store.scheduleState()
        state.holidays = calendars.holidays
        state.calendarChimes = calendars.chimes
        return state
    }

    /// Carries out `.purge`: the machine has judged the days before `before`.
    func purge(before: CivilDate) {
        do {
            let purged = try store.purgeOverrides(before: before)
            if purged > 0 { logger.info("purged \(purged) past date override(s)") }
            for alarm in try store.disableOneShots(before: before) {
                // One that rang was turned off when it was dismissed: this one never rang.
                guard case .once(let date) = alarm.repeats else { continue }
                logger.notice(
                    "alarm \(alarm.name): its day (\(date)) is over and it did not ring (missed, paused or silenced by a rule or override); turned off"
                )
            }
        } catch {
            logger.error("could not purge the days before \(before): \(error); trying again at the next look")
        }
    }

    func existingAlarm(_ id: Int) throws -> Alarm {
        guard let alarm = try store.alarm(id: id) else { throw noAlarm(id) }
        return alarm
    }

    /// Runs a layer check, reporting a collision as a conflict rather than as bad input.
    func asConflict(_ check: () throws(InputError) -> Void) throws(Refusal) {
        do { try check() } catch { throw Refusal(.conflict, error.message) }
    }

    /// `sound stop`: ends a sound test that still plays; never an alarm.
    func stopSoundTest() -> Response {
        if let session = machine.session {
            return .failure(
                .refused,
                "alarm \(session.settings.name) is \(session.state.rawValue), not a sound test: 'reveille dismiss' stops it"
            )
        }
        guard Controller.monotonic() < soundTestUntil else { return Response(message: "no sound test is playing") }
        ring.audio.stop()
        soundTestUntil = 0
        logger.info("sound test stopped")
        return Response(message: "stopped the sound test")
    }

    /// A session already begun goes on whatever the schedule becomes: say so.
    func stillRinging() -> [String]? {
        guard let session = machine.session else { return nil }
        return [
            "alarm \(session.settings.name) is still \(session.state == .snoozed ? "snoozed" : "ringing"): it stops only when dismissed ('reveille dismiss')"
        ]
    }

    func noAlarm(_ id: Int) -> Refusal {
        Refusal(.notFound, "no alarm #\(id); 'reveille alarm list' shows the ids")
    }

    /// `RingInfo` for a decision that rings.
    func ringInfo(_ decision: Decision, label: String) -> RingInfo? {
        guard let instant = decision.ringInstant else { return nil }
        let local = ZoneResolver(zone: zone).local(at: instant)
        return RingInfo(
            alarmID: decision.alarmID, label: label, date: local.date.description,
            weekday: local.date.weekday.displayName, time: local.time.description, instant: instant)
    }
}

/// The zone alarm times are read in, for threads other than the loop's (the app guard).
final class SharedZone: Sendable {
    private let value: Mutex<Zone>

    init(_ zone: Zone) { value = Mutex(zone) }

    var current: Zone {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
