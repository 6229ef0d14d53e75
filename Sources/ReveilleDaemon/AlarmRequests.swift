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
        case .alarmEdit(let id, let spec): return .answer(try edit(id: id, spec))
        case .alarmRemove(let id):
            let alarm = try store.existingAlarm(id)
            guard try store.deleteAlarm(id: id) else { throw Store.noAlarm(id) }
            logger.info("alarm \(alarm.name) removed")
            var response = Response(message: "removed alarm \(alarm.name)")
            response.warnings = controller.stillRinging()
            return .answer(response)
        case .alarmSetEnabled(let id, let enabled):
            var alarm = try store.existingAlarm(id)
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
            id: 0, time: LocalTime(secondsOfDay: 0)!, repeats: .weekly(.daily), volume: defaultVolume,
            fadeInSeconds: defaultFadeInSeconds)
        guard spec.time != nil || spec.inSeconds != nil else {
            throw InputError("an alarm needs a time (like 06:45) or --in (like 20m)")
        }
        try apply(spec, to: &alarm, isNew: true)
        try alarm.validate()
        alarm = try store.insert(alarm)
        logger.info("alarm \(alarm.name) added: \(Self.describe(alarm))")
        return try response(alarm, "added alarm \(alarm.name): \(Self.describe(alarm))")
    }

    private func edit(id: Int, _ spec: AlarmSpec) throws -> Response {
        var alarm = try store.existingAlarm(id)
        try apply(spec, to: &alarm, isNew: false)
        try alarm.validate()
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
                    for: alarm, in: state, today: now.date, nextRing: next != nil, equipment: equipment))
        }
    }

    private func response(_ alarm: Alarm, _ message: String) throws -> Response {
        let now = controller.now()
        let state = try controller.currentState()
        let next = controller.view.nextRing(of: alarm, in: state, after: now.instant)
        let warnings = RingWarnings.warnings(
            for: alarm, in: state, today: now.date, nextRing: next != nil, equipment: try equipment())
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

    /// Applies the fields of `spec` that are set. A new time without days or date keeps the alarm's
    /// repeat; a one-shot with no date rings at the next such time (today if still ahead).
    private func apply(_ spec: AlarmSpec, to alarm: inout Alarm, isNew: Bool) throws {
        let now = controller.now()
        let whenFields = [spec.days != nil, spec.date != nil, spec.inSeconds != nil].filter { $0 }.count
        guard whenFields <= 1 else {
            throw InputError("give one of --days (repeating), --date (one-shot) or --in (one-shot from now)")
        }
        if let seconds = spec.inSeconds {
            guard (1...(7 * 86_400)).contains(seconds) else { throw InputError("--in: must be 1 second to 7 days") }
            guard spec.time == nil else { throw InputError("give a time or --in, not both") }
            let local = ZoneResolver(zone: controller.zone).local(at: now.instant + seconds)
            alarm.time = local.time
            alarm.repeats = .once(local.date)
        } else if let time = spec.time {
            alarm.time = time
        }
        if let days = spec.days {
            alarm.repeats = .weekly(days)
        } else if let dateText = spec.date {
            alarm.repeats = try Repeat.once(dateText, at: alarm.time, now: (now.date, now.time))
        } else if isNew && spec.inSeconds == nil {
            alarm.repeats = Repeat.next(alarm.time, now: (now.date, now.time))
        }
        if let label = spec.label { alarm.label = label }
        if let enabled = spec.enabled { alarm.enabled = enabled }
        if let sound = spec.sound {
            if !sound.isEmpty { try sounds.check(sound) }
            alarm.sound = sound.isEmpty ? nil : sound
        }
        if let volume = spec.volume { alarm.volume = volume }
        if let fadeIn = spec.fadeInSeconds { alarm.fadeInSeconds = fadeIn }
        if let challenge = spec.challenge { alarm.challenge = challenge }
        if let difficulty = spec.mathDifficulty { alarm.mathDifficulty = difficulty }
        if let tags = spec.tags {
            let registered = Set(try store.tags().map(\.label))
            if let unknown = tags.first(where: { !registered.contains($0) }) {
                throw InputError(
                    "--tag \"\(unknown)\" is not a registered tag; see 'reveille tag list' or add it with 'reveille tag add --label \(unknown)'"
                )
            }
            alarm.tags = tags
        }
        if let maxSnoozes = spec.maxSnoozes { alarm.maxSnoozes = maxSnoozes }
        if let snoozeMinutes = spec.snoozeMinutes { alarm.snoozeMinutes = snoozeMinutes }
        if let skipHolidays = spec.skipHolidays { alarm.skipHolidays = skipHolidays }
    }
}
