import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Synchronization

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
    /// A chime is followed by its text, spoken (`[voice] speak_reminders`).
    public var speakReminders: Bool
    /// The math problems' numbers: nil, the system's randomness; a seed, the same problems every
    /// time (a replay of a recorded day, tests).
    public var problemSeed: UInt64?

    public init(
        audio: any AudioOutput, reader: any TagReader = NoTagReader(), policy: RingPolicy = RingPolicy(),
        graceSeconds: Int = AlarmClock.Limits.defaultGraceSeconds, hooksDirectory: String,
        defaultVolume: Int = Alarm.defaultVolume,
        defaultFadeInSeconds: Int = Alarm.defaultFadeInSeconds, voice: any Voice = SilentVoice(),
        speakReminders: Bool = true, problemSeed: UInt64? = nil
    ) {
        self.problemSeed = problemSeed
        self.voice = voice
        self.speakReminders = speakReminders
        self.audio = audio
        self.reader = reader
        self.policy = policy
        self.graceSeconds = graceSeconds
        self.hooksDirectory = hooksDirectory
        self.defaultVolume = defaultVolume
        self.defaultFadeInSeconds = defaultFadeInSeconds
    }
}

/// Drives the clock machine: feeds it every event (the wake timer, a tap, a key, a changed
/// schedule, a changed zone or calendar) with the clock's readings, and hands what it decides to
/// `Effects`. Every rule lives in `AlarmClock` (ReveilleCore); requests reach the machine through
/// the handlers of `Requests`, which read and write the store and call in here.
///
/// Confined to the event loop's thread (docs/ARCHITECTURE.md): no locks, not `Sendable`. Other
/// threads reach it through the loop's doorbell.
public final class Controller {
    let store: Store
    let clock: any Clocks
    let startedAt: Date
    let logger: Logger
    /// Where the zone's rules come from, read again when they may have changed.
    let zoneSource: ZoneSource
    /// The one decision-maker.
    private var machine: AlarmClock
    /// Carries out what it decides.
    let effects: Effects
    /// The zone, for the app guard's thread.
    let sharedZone: SharedZone
    /// The holidays of the calendars, for the app limits.
    let sharedHolidays = SharedHolidays()
    /// Holiday calendars, read at start and again when their files change.
    let calendars: Calendars
    /// Where what waits runs (calendar reads); nil: right here, for in-process tests.
    let offLoop: OffLoop?
    /// A calendar read that came in just before a ring: taken at the ring's tick, after it.
    private var calendarsHeld: [Calendars.Entry]?
    /// The chimes asked for again (`chimeAgain`), as the store keeps them: read once at start,
    /// added to as they are asked for, so that reading the schedule reads no table for them.
    private var againChimes: [Chime]
    /// What the first start after the upgrade found ringing on its own (`noteLayersRingingAlone`),
    /// and when: read once at start.
    private var layersAlone: (since: CivilDate, lines: [String])?

    init(
        store: Store, clock: any Clocks, zone: ZoneSource,
        calendarCache: String = FileManager.default.temporaryDirectory.path + "/reveille-calendars",
        calendarFetchFolder: String = FileManager.default.temporaryDirectory.path + "/reveille-fetched-calendars",
        calendarFetchRequest: String? = nil, ring: RingEnvironment, offLoop: OffLoop? = nil, outlets: any Outlets,
        logger: Logger
    ) throws {
        self.store = store
        self.offLoop = offLoop
        self.clock = clock
        self.zoneSource = zone
        self.startedAt = clock.now()
        self.logger = logger
        effects = Effects(ring: ring, store: store, outlets: outlets, logger: logger)
        let zone = zone.load()
        let now = Int(clock.now().timeIntervalSince1970)
        let today = ZoneResolver(zone: zone).local(at: now).date
        calendars = Calendars(
            loader: CalendarLoader(
                cacheFolder: calendarCache, fetchFolder: calendarFetchFolder,
                fetchRequest: calendarFetchRequest ?? calendarFetchFolder + "/fetch-wanted",
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
        schedule.notHolidays = calendars.notHolidays
        sharedHolidays.current = Set(calendars.holidays.keys)
        againChimes = try store.againChimes(since: now - Chime.againKeptSeconds)
        schedule.calendarChimes = Controller.chimes(of: calendars, andAgain: againChimes, now: now)
        schedule.household = Alarm.household(volume: ring.defaultVolume, fadeInSeconds: ring.defaultFadeInSeconds)
        let since = AlarmClock.Stored.since(now: now)
        let stored = AlarmClock.Stored(
            evaluatedThrough: evaluatedThrough, activeSession: try store.activeSession(),
            handled: try store.history(since: since.sessions).map {
                AlarmClock.Occurrence(alarmID: $0.settings.alarmID, instant: $0.scheduledAt)
            },
            lastSessionID: try store.lastSessionID(),
            handledChimes: Dictionary(try store.chimes(since: since.chimes).map { ($0.key, $0.instant) }) {
                first, _ in first
            }, wakeCheck: try store.openWakeCheck())
        sharedZone = SharedZone(zone)
        machine = AlarmClock(
            schedule: schedule, zone: zone,
            readerHealth: ring.reader.health, stored: stored,
            limits: AlarmClock.Limits(
                ring: ring.policy, graceSeconds: ring.graceSeconds, speakReminders: ring.speakReminders,
                earlyDismissSeconds: ring.policy.earlyDismissSeconds),
            random: ring.problemSeed.map(ProblemRandom.init(seed:)) ?? ProblemRandom())
        outlets.watchCalendarFolders(calendarFolders)
        layersAlone = try Controller.noteLayersRingingAlone(in: schedule, zone: zone, today: today, store, logger)
    }

    /// Once, at the first start after the upgrade that lets rules and overrides ring on their own:
    /// which of them will now ring where they rang nothing before, in the log and (for a month) in
    /// `status` and `doctor`.
    /// Returns what was found, and when, as kept.
    private static func noteLayersRingingAlone(
        in schedule: ScheduleState, zone: Zone, today: CivilDate, _ store: Store, _ logger: Logger
    ) throws -> (since: CivilDate, lines: [String])? {
        var notice = try store.layersAloneNotice()
        if notice == "pending" {
            let found = LayerConflicts.ringingAlone(in: schedule, zone: zone, today: today)
            for line in found {
                logger.notice(
                    "since this upgrade, \(line); 'reveille next' shows it, 'reveille rule rm N' or 'reveille override rm N' removes it"
                )
            }
            notice = ([today.description] + found).joined(separator: "\n")
            try store.setLayersAloneNotice(notice!)
        }
        let lines = (notice ?? "").split(separator: "\n").map(String.init)
        guard let first = lines.first, let since = try? CivilDate.parse(first) else { return nil }
        return (since, Array(lines.dropFirst()))
    }

    /// What `noteLayersRingingAlone` found, for a month after it looked.
    func layersRingingAloneNotes(today: CivilDate) -> [String] {
        guard let (since, lines) = layersAlone, today.dayNumber - since.dayNumber <= 30 else { return [] }
        return lines.map { "since the upgrade on \(since), \($0)" }
    }

    /// The zone alarm times are in.
    var zone: Zone { machine.zone }

    /// What the machine knows, for people: sessions, the next ring, local times.
    var view: ReadModel { ReadModel(machine: machine) }

    // MARK: Events

    /// After a (re)start: a session that was ringing rings again at once; a snoozed one keeps its
    /// deadline and count; then what came due while the daemon was down.
    public func start() {
        handle(.start(clockSynchronized: clock.isSynchronized))
    }

    /// The wake timer fired, the clock was set, or the test clock's check came round.
    func tick(clockWasSet: Bool = false) {
        handle(.tick(clockWasSet: clockWasSet, clockSynchronized: clock.isSynchronized))
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
        handle(.zoneChanged(zoneSource.load(current: zone)))
        if zone != before { reloadCalendars() }  // timed events fall on other local dates
        sharedZone.current = machine.zone
    }

    /// The reader's health changed (the reader's thread, through the loop).
    func readerHealthChanged(_ health: ReaderHealth) {
        handle(.readerHealth(health))
    }

    /// The reader saw a tag (known as `label`, or not) that no tag wait took.
    func tagPlaced(uid: String, label: String?, fresh: Bool) {
        handle(.tagPlaced(uid: uid, label: label, fresh: fresh))
    }

    func tagLifted() {
        handle(.tagLifted)
    }

    /// The machine's one door, from the daemon's side (`AlarmClock.handle`): every event of every
    /// edge (a request, a key, the reader, the sound, a timer) reaches the machine here, with one
    /// reading of the clocks (`at`: when a request was read; else now). What it decides is carried
    /// out, and its answer returned for the edge to word.
    @discardableResult
    func handle(_ event: ClockEvent, at instant: Instant? = nil) -> ClockAnswer {
        let (answer, actions) = machine.handle(event, at: instant ?? clock.instant())
        carryOut(actions)
        return answer
    }

    /// A line for the voice that no machine state decides (a key's "again in 10 minutes").
    func say(_ text: String) {
        carryOut([.say(text)])
    }

    /// Before exit: remember how far occurrences were handled, stop the sound and running hooks.
    public func shutDown() {
        handle(.shutDown)
        effects.hooks.stopAll()
    }

    /// The schedule in the store changed, as of `asOf`: the machine rings what was due by the old
    /// one first (`AlarmClock.scheduleChanged`), then takes the new.
    func scheduleChanged(asOf: Instant, after what: String) {
        do {
            handle(.scheduleChanged(try currentState(), clockSynchronized: clock.isSynchronized), at: asOf)
        } catch {
            logger.error("could not read the schedule after \(what): \(error)")
        }
    }

    private func carryOut(_ actions: [ClockAction]) {
        effects.carryOut(actions, view: view)
    }

    // MARK: Calendars

    /// Reads every calendar again, off the loop (`OffLoop`): `calendarsRead` takes the result. One
    /// read at a time; asked again meanwhile, it reads again once that one is in.
    func reloadCalendars() {
        do {
            let now = self.now()
            guard
                let reading = calendars.beginReading(
                    try store.calendars(), today: now.date, zone: zone, now: now.instant)
            else { return }
            let loader = calendars.loader
            if let offLoop {
                offLoop.run("calendars") { .calendarsRead(loader.read(reading)) }
            } else {
                calendarsRead(loader.read(reading))
            }
        } catch {
            logger.error("calendars: could not read the list: \(error)")
        }
    }

    /// The calendars were read: when their holidays or chimes changed, what is due by the old ones
    /// rings first, then the machine hears of the new ones.
    func calendarsRead(_ entries: [Calendars.Entry]) {
        // Just before a ring, the read waits for the ring's tick (`tick` takes it after the ring).
        if wakeIsClose() {
            calendarsHeld = entries
            return
        }
        let (changed, again) = calendars.install(entries, zone: zone)
        sharedHolidays.current = Set(calendars.holidays.keys)
        if changed { scheduleChanged(asOf: clock.instant(), after: "the calendars changed") }
        effects.outlets.watchCalendarFolders(calendarFolders)
        if again { reloadCalendars() }
    }

    /// A calendar was added or removed: watch its folder, read them all again (keeping each last
    /// good copy).
    func calendarsEdited() {
        effects.outlets.watchCalendarFolders(calendarFolders)
        reloadCalendars()
    }

    /// The folders the calendar files are in.
    private var calendarFolders: Set<String> { Set(calendars.entries.map { calendars.folder(of: $0.record) }) }

    /// Something changed in a folder holding a calendar file: read the calendars there again.
    func calendarFolderChanged(_ folder: String) {
        guard calendars.entries.contains(where: { calendars.folder(of: $0.record) == folder }) else { return }
        reloadCalendars()
    }

    // MARK: Readings

    func now() -> (instant: Int, date: CivilDate, time: LocalTime) { local(at: nowSeconds()) }

    /// `second` on the wall clock, in the machine's zone.
    private func local(at second: Int) -> (instant: Int, date: CivilDate, time: LocalTime) {
        let local = ZoneResolver(zone: zone).local(at: second)
        return (second, local.date, local.time)
    }

    func today() -> CivilDate { now().date }

    /// Where a request's spec is applied: now (or at `instant`), in the machine's zone.
    func specNow(at instant: Instant? = nil) -> SpecNow {
        let now = local(at: instant?.second ?? nowSeconds())
        return SpecNow(instant: now.instant, date: now.date, time: now.time, zone: zone)
    }

    func nowSeconds() -> Int { Int(clock.now().timeIntervalSince1970.rounded(.down)) }

    /// The schedule state as stored, with the calendars' holidays and chimes. Reading it changes
    /// nothing: what the days gone by leave behind is purged when the machine says (`.purge`).
    func currentState() throws -> ScheduleState {
        var state = try store.scheduleState()
        state.holidays = calendars.holidays
        state.notHolidays = calendars.notHolidays
        state.calendarChimes = Controller.chimes(of: calendars, andAgain: againChimes, now: nowSeconds())
        state.household = machine.schedule.household
        return state
    }

    /// "Again in 10 minutes" for a chime played lately (`Chime.again`): kept in the state, so a
    /// restart keeps it, and logged. A request's schedule change reaches the machine through
    /// `Requests`; a key's (`after`, who asked) reaches it here.
    func chimeAgain(_ chime: Chime, after key: String?) throws -> Chime {
        let asOf = clock.instant()
        let copy = chime.again(now: nowSeconds(), zone: zone)
        try store.insert(again: copy)
        againChimes.removeAll { $0.instant < copy.instant - Chime.againKeptSeconds }  // as the store drops them
        againChimes.append(copy)
        logger.info(
            "reminder \"\(chime.text)\" (\(chime.origin)) chimes again at \(view.chimeStamp(copy.instant))\(key.map { ", asked by \($0)" } ?? "")"
        )
        if let key { scheduleChanged(asOf: asOf, after: key) }
        return copy
    }

    /// The chimes computed ahead of the plan: the calendars', and those asked for again (kept a
    /// week, as far as the machine looks back).
    private static func chimes(of calendars: Calendars, andAgain again: [Chime], now: Int) -> [Chime] {
        let kept = again.filter { $0.instant >= now - Chime.againKeptSeconds }
        return kept.isEmpty ? calendars.chimes : CalendarReminders.sorted(calendars.chimes + kept)
    }

    /// Seconds from now to the instant the machine asked to be woken at (negative once passed),
    /// nil when it asked for none: the control server keeps requests back just before a ring.
    func secondsUntilWake() -> Double? {
        effects.armedWake.map { Double($0) - clock.now().timeIntervalSince1970 }
    }

    /// Whether the machine's wake (a ring, a snooze's end, a chime) is due within
    /// `quietBeforeWake`: what can wait (requests, a calendar read's result) then waits, so that
    /// its cost never lands on the ring.
    func wakeIsClose() -> Bool {
        guard let seconds = secondsUntilWake() else { return false }
        return seconds > -1 && seconds < Controller.quietBeforeWake
    }

    static let quietBeforeWake = 0.25

    /// A session already begun goes on whatever the schedule becomes: say so.
    func stillRinging() -> [String]? {
        guard let session = machine.session else { return nil }
        return [
            "alarm \(session.settings.name) is still \(session.state.rawValue): it stops only when dismissed ('reveille dismiss')"
        ]
    }
}

/// The zone alarm times are read in, for threads other than the loop's (the app guard).
/// The days the holiday calendars mark, for the app limits' "days off" (read on the guard's thread).
final class SharedHolidays: Sendable {
    private let value = Mutex<Set<CivilDate>>([])

    var current: Set<CivilDate> {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

final class SharedZone: Sendable {
    private let value: Mutex<Zone>

    init(_ zone: Zone) { value = Mutex(zone) }

    var current: Zone {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
