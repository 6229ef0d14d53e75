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

    public init(
        audio: any AudioOutput, reader: any TagReader = NoTagReader(), policy: RingPolicy = RingPolicy(),
        graceSeconds: Int = 15 * 60, hooksDirectory: String, defaultVolume: Int = Alarm.defaultVolume,
        defaultFadeInSeconds: Int = Alarm.defaultFadeInSeconds
    ) {
        self.audio = audio
        self.reader = reader
        self.policy = policy
        self.graceSeconds = graceSeconds
        self.hooksDirectory = hooksDirectory
        self.defaultVolume = defaultVolume
        self.defaultFadeInSeconds = defaultFadeInSeconds
    }
}

/// What changes while the daemon runs, guarded by the controller's lock.
struct RingState {
    /// The session ringing or snoozed, if any.
    var session: RingSession?
    /// Occurrences up to this instant have been rung or recorded as missed.
    var evaluatedThrough: Int?
    /// Wall and monotonic time at the last tick, to notice clock jumps.
    var lastTick: (wall: Double, monotonic: ContinuousClock.Instant)?
    var warnedClockBehind = false
    var generator = SystemRandomNumberGenerator()
    /// The next ring after `evaluatedThrough`, as last computed; nil when unknown (the schedule or
    /// the zone changed). While the clock is before it, nothing can be due and a tick reads nothing.
    var nextDue: Int?
}

/// Carries out control requests and timer ticks against the store, by the rules of the core.
/// The only writer of state.
///
/// Requests arrive from connection threads and ticks from the scheduler; one lock serializes them
/// so that a read-modify-write (an edit, a rule checked against the others, a snooze) never
/// interleaves with another.
public final class Controller: Sendable {
    let store: Store
    let clock: any WallClock
    let startedAt: Date
    let logger: Logger
    let ring: RingEnvironment
    let hooks: HookRunner
    /// nil: follow the system's zone, and notice when it changes.
    let fixedZone: TimeZone?
    /// The link that names the system's zone.
    let zoneLink: String
    private let currentZone: Mutex<TimeZone>
    let lock = Mutex(RingState())
    /// A `tag add` or `tag test` waiting for a tap, which takes the next tag the reader sees.
    let tagWaiter = Mutex<TagWaiter?>(nil)
    /// The app policy and its enforcement; set once at start.
    let appSupervisor = Mutex<AppSupervisor?>(nil)
    /// Rings the scheduler when something changed that moves the next wake-up.
    let wake: @Sendable () -> Void

    public init(
        store: Store, clock: any WallClock, zone: TimeZone?, zoneLink: String = "/etc/localtime",
        ring: RingEnvironment, logger: Logger, wake: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.clock = clock
        self.fixedZone = zone
        self.zoneLink = zoneLink
        self.currentZone = Mutex(zone ?? SystemZone.current(link: zoneLink))
        self.startedAt = clock.now()
        self.logger = logger
        self.ring = ring
        self.hooks = HookRunner(directory: ring.hooksDirectory, logger: logger)
        self.wake = wake
    }

    /// Whether requests and ticks can be served: the lock can be taken (for the watchdog).
    func isResponsive() -> Bool {
        lock.withLock { _ in true }
    }

    /// The zone alarm times are in.
    var zone: TimeZone { currentZone.withLock { $0 } }

    /// Follows a change of the system's time zone (when none was given); true when it changed.
    func refreshZone() -> Bool {
        guard fixedZone == nil else { return false }
        let system = SystemZone.current(link: zoneLink)
        return currentZone.withLock { zone in
            guard zone.identifier != system.identifier else { return false }
            logger.notice(
                "the system time zone changed from \(zone.identifier) to \(system.identifier); recomputing the schedule"
            )
            zone = system
            return true
        }
    }

    /// Answers one request from a peer with `role`. Never throws: every failure is an error reply.
    public func handle(_ operation: Command, role: Role, peer: Peer? = nil, refusal: () -> String) -> Response {
        guard role >= operation.requiredRole else {
            return .failure(.forbidden, refusal())
        }
        // These wait (for a device, for a tap) and take the lock only for what they change.
        switch operation {
        case .soundTest(let file, let device, let seconds, let volume):
            return soundTest(file: file, device: device, seconds: seconds, volume: volume)
        case .soundDevices:
            var response = Response()
            response.devices = ring.audio.availableDevices()
            return response
        case .tagAdd, .tagTest:
            return reply(operation) { try tagOperation(operation) }
        case .appsStatus, .appCheck, .appGrant, .appStart:
            return reply(operation) { try appOperation(operation, peer: peer) }
        default: break
        }
        let response = lock.withLock { state in
            reply(operation) { try perform(operation, role: role, state: &state) }
        }
        if response.ok && operation.changesWhatIsNext { wake() }
        return response
    }

    /// Runs `body`, turning what it throws into an error reply.
    private func reply(_ operation: Command, _ body: () throws -> Response) -> Response {
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

    private func perform(_ operation: Command, role: Role, state: inout RingState) throws -> Response {
        let today = self.today()
        if operation.changesSchedule {
            // Ring what is due before the schedule changes, then start counting from now, so that an
            // alarm added for a time already passed today is not taken for a missed one.
            catchUp(&state)
            if let through = state.evaluatedThrough { try store.setEvaluatedThrough(through) }
            state.nextDue = nil
        }
        switch operation {
        case .status:
            var response = Response()
            response.status = try status(role: role, session: state.session)
            return response
        case .alarmList:
            var response = Response()
            response.alarms = try alarmInfos()
            return response
        case .alarmAdd(let spec):
            return try addAlarm(spec)
        case .alarmEdit(let id, let spec):
            return try editAlarm(id: id, spec)
        case .alarmRemove(let id):
            let alarm = try existingAlarm(id)
            guard try store.deleteAlarm(id: id) else { throw noAlarm(id) }
            logger.info("alarm \(alarm.name) removed")
            return Response(message: "removed alarm \(alarm.name)")
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
            response.overrides = try currentState(today: today).overrides.map(OverrideInfo.init)
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
                return Response(message: "alarms are off until 'reveille resume'")
            }
            let until = try CivilDate.parse(untilText, today: today)
            guard until > today else {
                throw InputError("--until \(until): must be after today (\(today)); alarms ring again from that date")
            }
            try store.setMaster(.pausedUntil(until))
            logger.notice("alarms paused until \(until)")
            return Response(message: "alarms paused; they ring again from \(until.weekday.displayName) \(until)")
        case .resume:
            try store.setMaster(.on)
            logger.notice("alarms resumed")
            return Response(message: "alarms are on")
        case .next(let days):
            guard (1...3660).contains(days) else { throw InputError("--days \(days): must be 1-3660") }
            var response = Response()
            response.schedule = try schedule(days: days)
            return response
        case .snooze:
            return try snooze(&state)
        case .problem:
            return try problem(&state)
        case .answer(let value):
            return try answer(value, &state)
        case .history(let days):
            var response = Response()
            response.history = try history(days: days)
            return response
        case .stats(let days):
            var response = Response()
            response.stats = try stats(days: days)
            return response
        case .tagList, .tagRemove:
            return try tagOperation(operation)
        case .soundTest, .soundDevices, .tagAdd, .tagTest, .appsStatus, .appCheck, .appGrant, .appStart:
            return Response()  // answered in `handle`, outside the lock
        }
    }

    // MARK: Helpers shared by the operations

    func now() -> (instant: Int, date: CivilDate, time: LocalTime) {
        let instant = nowSeconds()
        let local = ZoneResolver(zone: zone).local(at: instant)
        return (instant, local.date, local.time)
    }

    func today() -> CivilDate { now().date }

    /// The schedule state, after purging overrides for days gone by (SPEC §2).
    func currentState(today: CivilDate) throws -> ScheduleState {
        var state = try store.scheduleState()
        if !LayerConflicts.expired(state.overrides, today: today).isEmpty {
            let purged = try store.purgeOverrides(before: today)
            logger.info("purged \(purged) past date override(s)")
            state.overrides.removeAll { $0.date < today }
        }
        return state
    }

    func existingAlarm(_ id: Int) throws -> Alarm {
        guard let alarm = try store.alarm(id: id) else { throw noAlarm(id) }
        return alarm
    }

    /// Runs a layer check, reporting a collision as a conflict rather than as bad input.
    func asConflict(_ check: () throws(InputError) -> Void) throws(Refusal) {
        do { try check() } catch { throw Refusal(.conflict, error.message) }
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
