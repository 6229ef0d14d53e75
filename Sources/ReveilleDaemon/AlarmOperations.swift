import Glibc
import ReveilleCore
import ReveilleProtocol

/// `alarm add`, `alarm edit` and the alarm listing.
extension Controller {
    func addAlarm(_ spec: AlarmSpec) throws -> Response {
        let now = self.now()
        var alarm = Alarm(
            id: 0, time: LocalTime(secondsOfDay: 0)!, repeats: .weekly(.daily), volume: ring.defaultVolume,
            fadeInSeconds: ring.defaultFadeInSeconds)
        guard spec.time != nil || spec.inSeconds != nil else {
            throw InputError("an alarm needs a time (like 06:45) or --in (like 20m)")
        }
        try apply(spec, to: &alarm, now: now, isNew: true)
        try alarm.validate()
        alarm = try store.insert(alarm)
        logger.info("alarm \(alarm.name) added: \(describe(alarm))")
        return try alarmResponse(alarm, "added alarm \(alarm.name): \(describe(alarm))")
    }

    func editAlarm(id: Int, _ spec: AlarmSpec) throws -> Response {
        var alarm = try existingAlarm(id)
        try apply(spec, to: &alarm, now: now(), isNew: false)
        try alarm.validate()
        guard try store.update(alarm) else { throw noAlarm(id) }
        logger.info("alarm \(alarm.name) changed: \(describe(alarm))")
        return try alarmResponse(alarm, "changed alarm \(alarm.name): \(describe(alarm))")
    }

    /// Every alarm with its next ring, and why it will not ring where it will not.
    func alarmInfos() throws -> [AlarmInfo] {
        let now = self.now()
        let state = try currentState()
        let equipment = try self.equipment()
        return state.alarms.map { alarm in
            let next = nextRing(of: alarm, in: state, after: now.instant)
            return AlarmInfo(
                alarm, nextRing: next,
                warnings: RingWarnings.warnings(
                    for: alarm, in: state, today: now.date, nextRing: next != nil, equipment: equipment))
        }
    }

    func alarmResponse(_ alarm: Alarm, _ message: String) throws -> Response {
        let now = self.now()
        let state = try currentState()
        let next = nextRing(of: alarm, in: state, after: now.instant)
        let warnings = RingWarnings.warnings(
            for: alarm, in: state, today: now.date, nextRing: next != nil, equipment: try equipment())
        var response = Response(
            message: message + (next.map { "; next ring \($0.weekday) \($0.date) \($0.time)" } ?? ""))
        response.warnings = warnings.isEmpty ? nil : warnings
        response.alarms = [AlarmInfo(alarm, nextRing: next, warnings: warnings)]
        return response
    }

    /// What a ring's challenge can use: a configured reader, registered tags.
    func equipment() throws -> RingWarnings.Equipment {
        let configured = if case .notConfigured = ring.reader.health { false } else { true }
        return RingWarnings.Equipment(readerConfigured: configured, tagCount: try store.tags().count)
    }

    func nextRing(of alarm: Alarm, in state: ScheduleState, after instant: Int) -> RingInfo? {
        var only = state
        only.alarms = [alarm]
        var engine = ScheduleEngine(state: only, zone: zone)
        return engine.nextRing(after: instant).flatMap { ringInfo($0, label: alarm.label) }
    }

    /// `06:45 mon-fri` or `07:30 once on 2026-12-24`.
    func schedule(of alarm: Alarm) -> String {
        switch alarm.repeats {
        case .weekly(let days): "\(alarm.time) \(days)"
        case .once(let date): "\(alarm.time) once on \(date)"
        }
    }

    /// `schedule(of:)`, marked when the alarm is disabled.
    func describe(_ alarm: Alarm) -> String {
        alarm.enabled ? schedule(of: alarm) : schedule(of: alarm) + " (disabled)"
    }

    /// Applies the fields of `spec` that are set. A new time without days or date keeps the alarm's
    /// repeat; a one-shot with no date rings at the next such time (today if still ahead).
    private func apply(
        _ spec: AlarmSpec, to alarm: inout Alarm, now: (instant: Int, date: CivilDate, time: LocalTime), isNew: Bool
    ) throws {
        let whenFields = [spec.days != nil, spec.date != nil, spec.inSeconds != nil].filter { $0 }.count
        guard whenFields <= 1 else {
            throw InputError("give one of --days (repeating), --date (one-shot) or --in (one-shot from now)")
        }
        if let seconds = spec.inSeconds {
            guard (1...(7 * 86_400)).contains(seconds) else { throw InputError("--in: must be 1 second to 7 days") }
            guard spec.time == nil else { throw InputError("give a time or --in, not both") }
            let local = ZoneResolver(zone: zone).local(at: now.instant + seconds)
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
            if !sound.isEmpty { try checkSound(sound) }
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

    /// Refuses a sound file the daemon could not play, saying why and what to do.
    ///
    /// The daemon reads what its own user may read, which is more than a household member may
    /// (its state folder, say). So a file named in a request must be one everyone may read, in
    /// folders everyone may search (`PublicFile`), and every other case gets one answer: the
    /// answers cannot tell what exists where the asker cannot look.
    func checkSound(_ sound: String, option: String = "--sound") throws {
        try checkPublic(sound, option: option)
        if let problem = ring.audio.problem(withSound: sound) {
            throw InputError("\(option): cannot play \(Sanitized.line(problem)); use a WAV, FLAC, Ogg or MP3 file")
        }
    }

    /// The first half of `checkSound`: an absolute path to a file everyone may read.
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
