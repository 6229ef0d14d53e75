import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// `alarm add|edit|rm|enable|disable|list` (README, "Alarms").
final class AlarmRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let sounds: SoundCheck
    private let reader: any TagReader
    /// Volume and fade-in of alarms added without them (reveille.toml's [audio]).
    private let defaultVolume: Int
    private let defaultFadeInSeconds: Int
    private let logger: Logger

    init(
        controller: Controller, store: Store, sounds: SoundCheck, reader: any TagReader, defaultVolume: Int,
        defaultFadeInSeconds: Int, logger: Logger
    ) {
        self.controller = controller
        self.store = store
        self.sounds = sounds
        self.reader = reader
        self.defaultVolume = defaultVolume
        self.defaultFadeInSeconds = defaultFadeInSeconds
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        switch request.command {
        case .alarmList:
            var response = Response()
            response.alarms = try alarmInfos()
            return .answer(response)
        case .alarmAdd(let spec): return .answer(try add(spec))
        // A change is written as the gate judged it: its edit, as of the one reading it was judged at.
        case .alarmEdit:
            guard let judged = request.judged, case .alarm(let id, let spec) = judged.edit else {
                throw misrouted(request.command)
            }
            return .answer(try edit(id: id, spec, now: judged.now))
        case .alarmRemove:
            guard case .removeAlarm(let id) = request.judged?.edit else { throw misrouted(request.command) }
            let alarm = try store.existingAlarm(id)
            guard try store.deleteAlarm(id: id) else { throw Store.noAlarm(id) }
            logger.info("alarm \(alarm.name) removed")
            var response = Response(message: "removed alarm \(alarm.name)")
            response.warnings = controller.stillRinging()
            return .answer(response)
        case .alarmSetEnabled:
            guard let now = request.judged?.now, case .enableAlarm(let id, let enabled) = request.judged?.edit else {
                throw misrouted(request.command)
            }
            var alarm = try store.existingAlarm(id)
            if let why = RingWarnings.passedOneShot(alarm, enabling: enabled, today: now.date, time: now.time) {
                throw Refusal(.refused, why)
            }
            alarm.enabled = enabled
            _ = try store.update(alarm)
            logger.info("alarm \(alarm.name) \(enabled ? "enabled" : "disabled")")
            return .answer(
                try response(
                    alarm, "\(enabled ? "enabled" : "disabled") alarm \(alarm.name): \(Self.schedule(of: alarm))"))
        default: throw misrouted(request.command)
        }
    }

    private func add(_ spec: AlarmSpec) throws -> Response {
        var alarm = Alarm(
            id: 0, time: LocalTime.midnight, repeats: .weekly(.daily), volume: defaultVolume,
            fadeInSeconds: defaultFadeInSeconds)
        guard spec.time != nil || spec.inSeconds != nil else {
            throw InputError("an alarm needs a time (like 06:45) or --in (like 20m)")
        }
        try apply(spec, to: &alarm, isNew: true, now: controller.specNow())
        alarm = try store.insert(alarm)
        logger.info("alarm \(alarm.name) added: \(Self.describe(alarm))")
        return try response(alarm, "added alarm \(alarm.name): \(Self.describe(alarm))")
    }

    private func edit(id: Int, _ spec: AlarmSpec, now: SpecNow) throws -> Response {
        var alarm = try store.existingAlarm(id)
        let wasOn = alarm.enabled
        try apply(spec, to: &alarm, isNew: false, now: now)
        if let why = RingWarnings.passedOneShot(
            alarm, enabling: alarm.enabled && !wasOn, today: now.date, time: now.time)
        {
            throw Refusal(.refused, why)
        }
        guard try store.update(alarm) else { throw Store.noAlarm(id) }
        logger.info("alarm \(alarm.name) changed: \(Self.describe(alarm))")
        return try response(alarm, "changed alarm \(alarm.name): \(Self.describe(alarm))")
    }

    /// Every alarm with its next ring, and why it will not ring where it will not.
    private func alarmInfos() throws -> [AlarmInfo] {
        let now = controller.now()
        let state = try controller.currentState()
        let equipment = try self.equipment()
        let view = controller.view
        return state.alarms.map { alarm in
            let next = view.nextRing(of: alarm, in: state, after: now.instant)
            return AlarmInfo(
                alarm, nextRing: next,
                warnings: RingWarnings.warnings(
                    for: alarm, in: state, today: now.date, time: now.time, nextRing: next != nil,
                    equipment: equipment))
        }
    }

    private func response(_ alarm: Alarm, _ message: String) throws -> Response {
        let now = controller.now()
        let state = try controller.currentState()
        let next = controller.view.nextRing(of: alarm, in: state, after: now.instant)
        let warnings = RingWarnings.warnings(
            for: alarm, in: state, today: now.date, time: now.time, nextRing: next != nil,
            equipment: try equipment())
        var response = Response(
            message: message + (next.map { "; next ring \($0.weekday) \($0.date) \($0.time)" } ?? ""))
        response.warnings = warnings.isEmpty ? nil : warnings
        response.alarms = [AlarmInfo(alarm, nextRing: next, warnings: warnings)]
        return response
    }

    /// What a ring's challenge can use: a configured reader, registered tags.
    private func equipment() throws -> RingWarnings.Equipment {
        let configured = if case .notConfigured = reader.health { false } else { true }
        return RingWarnings.Equipment(readerConfigured: configured, tagCount: try store.tags().count)
    }

    /// `06:45 mon-fri` or `07:30 once on 2026-12-24`.
    static func schedule(of alarm: Alarm) -> String {
        switch alarm.repeats {
        case .weekly(let days): "\(alarm.time) \(days)"
        case .once(let date): "\(alarm.time) once on \(date)"
        }
    }

    /// `schedule(of:)`, marked when the alarm is disabled.
    static func describe(_ alarm: Alarm) -> String {
        alarm.enabled ? schedule(of: alarm) : schedule(of: alarm) + " (disabled)"
    }

    /// Applies `spec` (`AlarmSpec.apply`): the store's tags, and the sounds the daemon can play.
    private func apply(_ spec: AlarmSpec, to alarm: inout Alarm, isNew: Bool, now: SpecNow) throws {
        try spec.apply(
            to: &alarm, isNew: isNew, now: now, registeredTags: { Set(try store.tags().map(\.label)) },
            checkSound: { try sounds.check($0) })
    }
}
