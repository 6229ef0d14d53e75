/// The reminders' side of the clock machine: which chimes came due, which wait for a ringing
/// alarm to stop, which wait for their `--unless` command, and which were handled. `AlarmClock`
/// holds one and asks it at each look; it decides for chimes what the machine decides for rings,
/// with the same grace and look-back.
struct ChimeQueue {
    /// Chimes due up to this instant have been looked at.
    private var through: Int?
    /// The next chime after `through`, once known (nil inside: none within the horizon).
    private var next: Int??
    /// Chimes handled (played, skipped or missed), by key: when they were due.
    private var handled: [String: Int]
    /// Due chimes waiting for a ringing alarm to stop.
    private(set) var waiting: [Chime] = []
    /// Due chimes whose `--unless` command runs, by key.
    private(set) var checking: [String: Chime] = [:]
    /// Waiting chimes already logged as waiting.
    private var announced: Set<String> = []
    /// The last chimes played, newest last: what "again in 10 minutes" can ask for.
    private(set) var recent: [Chime] = []
    /// When the last chime played.
    private(set) var lastPlayedAt: Int?
    static let recentKept = 16
    /// Whether a chime is followed by its text, spoken (`[voice] speak_reminders`).
    private let speak: Bool

    /// From what the store kept: chimes handled, and how far occurrences were evaluated (a chime
    /// waiting when the daemon stopped is looked at again, within the grace period).
    init(handled: [String: Int], evaluatedThrough: Int?, graceSeconds: Int, speak: Bool) {
        self.handled = handled
        self.speak = speak
        through = evaluatedThrough.map { $0 - graceSeconds }
    }

    /// The schedule (or the calendars' chimes) changed at `now`: the next chime is found again,
    /// and nothing before now becomes due by the change.
    mutating func scheduleChanged(now: Int) {
        next = nil
        if let through, now > through { self.through = now }
    }

    /// The zone changed: the next chime falls at another instant.
    mutating func zoneChanged() { next = nil }

    /// The clock turned out to have been ahead: what was handled after `now` is forgotten (it
    /// comes due again in its time), and the look starts again from `from`.
    mutating func rewind(now: Int, from: Int, forgetHandled: Bool = true) {
        if forgetHandled { handled = handled.filter { $0.value <= now } }
        through = min(through ?? from, from)
        next = nil
    }

    /// The next instant a chime is due after `now`.
    mutating func nextWake(now: Int, schedule: ScheduleState, zone: Zone) -> Int? {
        if next == nil {
            var plan = ReminderPlan(state: schedule, zone: zone)
            next = .some(plan.next(after: max(now, through ?? now))?.instant)
        }
        return next ?? nil
    }

    /// Chimes that came due since the last look: too late ones are recorded as missed, those with
    /// an `--unless` command have it run first, the others play (or wait for a ringing alarm).
    mutating func due(
        now: Int, schedule: ScheduleState, zone: Zone, limits: AlarmClock.Limits, ringing: RingSession?
    ) -> [ClockAction] {
        guard let through else {
            self.through = now  // the first start ever: nothing before now was due
            return []
        }
        guard now > through else { return [] }  // the clock is behind: the machine's catch-up says so
        if case .some(let next) = next, next.map({ now < $0 }) ?? true {
            self.through = now  // nothing can have come due
            return []
        }
        next = nil
        var plan = ReminderPlan(state: schedule, zone: zone)
        let waitingKeys = Set(waiting.map(\.key))
        // As for alarms, a look back after a long gap (daemon down, clock set) stops at a week.
        let due = plan.chimes(after: max(through, now - limits.lookBackSeconds), through: now).filter {
            handled[$0.key] == nil && checking[$0.key] == nil && !waitingKeys.contains($0.key)
        }
        self.through = now
        handled = handled.filter { $0.value > now - limits.lookBackSeconds }
        var actions: [ClockAction] = []
        for chime in due {
            if now - chime.instant > limits.graceSeconds {
                handled[chime.key] = chime.instant
                actions.append(
                    .log(
                        .warning,
                        "reminder \"\(chime.text)\" (\(chime.origin)) was due at \(Self.localTime(chime.instant, zone)); missed (over \(limits.graceSeconds / 60) min ago)"
                    ))
                actions.append(.recordChime(chime, .missed, at: now))
            } else if chime.unless != nil {
                checking[chime.key] = chime
                actions.append(.checkChime(chime))
            } else {
                waiting.append(chime)
            }
        }
        return actions + playWaiting(now: now, ringing: ringing, zone: zone)
    }

    /// A chime's `--unless` command finished: exit status 0 (`skip`) means it is not needed.
    /// `detail` says how the command ended, for the log. Nil when no such chime was being checked.
    mutating func checked(key: String, skip: Bool, detail: String, now: Int, ringing: RingSession?, zone: Zone)
        -> [ClockAction]?
    {
        guard let chime = checking.removeValue(forKey: key) else { return nil }
        if skip {
            handled[chime.key] = chime.instant
            return [
                .log(.notice, "reminder \"\(chime.text)\" (\(chime.origin)) skipped: its --unless command \(detail)"),
                .recordChime(chime, .skipped, at: now),
            ]
        }
        waiting.append(chime)
        return [.log(.info, "reminder \"\(chime.text)\": its --unless command \(detail); it plays")]
            + playWaiting(now: now, ringing: ringing, zone: zone)
    }

    /// Plays the chimes that wait, unless an alarm rings: a chime never interrupts one. Chimes due
    /// together play as one chime (the first one's sound), each logged and recorded, then their
    /// texts are said (so never over a ringing alarm).
    mutating func playWaiting(now: Int, ringing: RingSession?, zone: Zone) -> [ClockAction] {
        guard let first = waiting.first else { return [] }
        if let active = ringing, active.state == .ringing {
            let quiet = waiting.filter { !announced.contains($0.key) }
            announced.formUnion(quiet.map(\.key))
            return quiet.map {
                .log(.info, "reminder \"\($0.text)\" waits until alarm \(active.settings.name) is quiet")
            }
        }
        let chimes = waiting
        waiting = []
        announced = []
        var actions: [ClockAction] = [.chime(first)]
        if speak { actions.append(.say(Spoken.reminders(chimes))) }
        for chime in chimes {
            handled[chime.key] = chime.instant
            let late = now - chime.instant
            actions.append(
                .log(
                    .notice,
                    "reminder \"\(chime.text)\" (\(chime.origin)) chimes (due \(Self.localTime(chime.instant, zone))\(late > 1 ? ", \(DurationText.format(seconds: late)) late" : ""))"
                ))
            actions.append(.recordChime(chime, .played, at: now))
            actions.append(.publish(.chime(chime)))
            actions.append(.chimeHook(chime))
            recent.append(chime)
            lastPlayedAt = now
        }
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        return actions
    }

    private static func localTime(_ instant: Int, _ zone: Zone) -> String {
        let local = ZoneResolver(zone: zone).local(at: instant).time
        return instant % 60 == 0 ? local.hoursAndMinutes : local.withSeconds
    }
}
