import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// What the daemon was told to say in `status` about its own start and settings.
final class DaemonNotes {
    /// Said after a start that restored the state from its backup.
    var stateRestored: String?
    /// reveille.toml refused at a reload (SIGHUP), with since when.
    var settingsRejected: String?
    /// reveille.toml loads but waits for a committed ring it would weaken, with why.
    var settingsWaiting: String?
    /// The first boot's set-up is still to be done on the screen (`SetupRequests`).
    var setupPending = false
    /// The machine's network, as networkd says (`NetworkWatch`); nil where it says nothing.
    var network: NetworkInfo?
    /// The display's backlight as last set (`ScreenBacklight`); nil: none is driven.
    var backlight: String?
    /// The set-up network while it is open (`SetupNetworkKeeper`), with what the radio heard before.
    var setupNetwork: (name: String, heard: [HeardNetwork])?
}

/// `status`, `next`, `history` and `stats`: what the clock says, for people.
final class ReportRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let ring: RingEnvironment
    private let apps: AppSupervisor?
    private let bedside: BedsideControls?
    private let notes: DaemonNotes

    init(
        controller: Controller, store: Store, ring: RingEnvironment, apps: AppSupervisor?,
        bedside: BedsideControls?, notes: DaemonNotes
    ) {
        self.controller = controller
        self.store = store
        self.ring = ring
        self.apps = apps
        self.bedside = bedside
        self.notes = notes
    }

    func handle(_ request: Asked) throws -> Handled {
        var response = Response()
        switch request.command {
        case .status:
            response.status = try status(role: request.role)
            response.status?.person = request.person
        case .next(let days):
            let now = controller.now()
            let played = store.recentChimeKeys(before: now.instant)
            response.schedule = controller.view.schedule(
                days: days, in: try controller.currentState(), now: now, playedChimes: played)
        case .history(let days): response.history = try history(days: days)
        case .stats(let days): response.stats = try stats(days: days)
        default: throw misrouted(request.command)
        }
        return .answer(response)
    }

    private func status(role: Role) throws -> StatusInfo {
        let now = controller.now()
        let state = try controller.currentState()
        let view = controller.view
        let zone = controller.zone
        let (master, until): (MasterState, String?) =
            switch state.master.standing(on: now.date) {
            case .on: (.on, nil)
            case .off: (.off, nil)
            case .pausedUntil(let date): (.paused, date.description)
            }
        var info = StatusInfo(
            version: reveilleVersion,
            uptimeSeconds: max(0, now.instant - Int(controller.startedAt.timeIntervalSince1970)),
            timeZone: zone.identifier,
            now: "\(now.date) \(now.time.withSeconds)",
            nowInstant: now.instant, master: master, pausedUntil: until, alarmCount: state.alarms.count,
            enabledCount: state.alarms.filter(\.enabled).count, nextRing: view.nextRing, role: role)
        info.timeZoneRules = zone.origin
        info.nextReminder = view.nextReminder(in: state, after: now.instant)
        info.remindersOn = state.remindersOn ? nil : false
        info.network = notes.network
        let problems = controller.calendars.problems(zone: zone)
        info.calendarProblems = problems.isEmpty ? nil : problems
        let stateProblems = [notes.stateRestored, store.problem].compactMap { $0 }
        info.stateProblems = stateProblems.isEmpty ? nil : stateProblems
        view.ringStatus(into: &info, now: now.instant)
        info.reader = ReaderState(ring.reader.health)
        info.sound = ring.audio.statusLine
        info.appGuard = apps?.mode ?? AppGuardState(mode: .starting, detail: "")
        info.inputs = bedside?.states ?? []
        info.voice = ring.voice.statusLine
        info.settingsRejected = notes.settingsRejected
        info.settingsWaiting = notes.settingsWaiting
        info.setupPending = notes.setupPending ? true : nil
        info.night = Backlight.isNight(hour: controller.specNow().time.secondsOfDay / 3600)
        info.backlight = notes.backlight
        info.setupNetwork = notes.setupNetwork?.name
        let alone = controller.layersRingingAloneNotes(today: now.date)
        info.layersRingingAlone = alone.isEmpty ? nil : alone
        info.resources = ResourceUse.current()
        return info
    }

    /// The sessions of the `days` calendar days that end today.
    private func sessions(days: Int) throws -> [RingSession] {
        var resolver = ZoneResolver(zone: controller.zone)
        return try store.history(since: resolver.startOfDays(days, endingAt: controller.nowSeconds()))
    }

    private func history(days: Int) throws -> [HistoryEntry] {
        let view = controller.view
        let resolver = ZoneResolver(zone: controller.zone)
        return try sessions(days: days).map { session in
            let scheduled = resolver.local(at: session.scheduledAt)
            var entry = HistoryEntry(
                id: session.id, alarmID: session.settings.alarmID, label: session.settings.label,
                scheduled: "\(scheduled.date) \(view.dueTime(session.scheduledAt))",
                started: !session.rang ? nil : view.localTime(session.startedAt, seconds: true), state: session.state,
                snoozes: session.snoozeCount, wrongAnswers: session.wrongAnswers,
                ended: session.endedAt.map { view.localTime($0, seconds: true) }, dismissedBy: session.dismissedBy,
                secondsToDismiss: session.secondsToDismiss)
            entry.early = session.wasDismissedEarly ? true : nil
            entry.fellBackToMath = session.fellBackToMath ? true : nil
            entry.readerState = session.readerState
            entry.readerLostSecondsBeforeRing = session.fellBackToMath ? session.readerLostBeforeRing : nil
            entry.dismissedTag = session.dismissedTag
            entry.joined = session.joined.isEmpty ? nil : session.joined
            entry.test = session.isTest ? true : nil
            entry.wakeCheck = session.wakeCheck?.outcome.rawValue
            return entry
        }
    }

    private func stats(days: Int) throws -> StatsInfo { StatsInfo(days: days, of: try sessions(days: days)) }
}
