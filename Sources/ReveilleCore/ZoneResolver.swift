import FoundationEssentials

/// How the zone bent a wall-clock time on a given day.
public enum ZoneShift: String, Hashable, Sendable, Codable {
    /// The time exists once: nothing to say.
    case none
    /// The time falls in a spring-forward gap; it rings at the first instant after the gap.
    case gap
    /// The time happens twice (fall back); it rings once, at the first.
    case repeated
}

/// Turns (local date, local time) into instants in one IANA zone, and back.
///
/// Days on which the zone's offset is the same from before local midnight to after the next
/// local midnight are resolved with arithmetic (and cached); only days near a transition pay for
/// the careful path. Reads no clock: the `Zone`'s rules supply the offsets.
public struct ZoneResolver {
    public let zone: Zone
    /// Day number → the offset that holds all day, or nil when a transition is near.
    private var uniformOffset: [Int: Int?] = [:]

    public init(zone: Zone) {
        self.zone = zone
    }

    /// Seconds east of UTC at `instant`.
    public func offset(at instant: Int) -> Int {
        zone.secondsFromGMT(at: instant)
    }

    /// The instant at which `time` on `date` happens, by the rules of docs/guide/schedule.md, "How the schedule decides".
    public mutating func resolve(_ date: CivilDate, _ time: LocalTime) -> (instant: Int, shift: ZoneShift) {
        let local = date.dayNumber * 86_400 + time.secondsOfDay
        if let offset = dayOffset(date) {
            return (local - offset, .none)
        }
        // Near a transition: try the offsets from a day before and a day after.
        let before = offset(at: local - 86_400)
        let after = offset(at: local + 86_400)
        let candidates = Set([local - before, local - after]).sorted()
        let valid = candidates.filter { local - offset(at: $0) == $0 }
        if let first = valid.first {
            return (first, valid.count > 1 ? .repeated : .none)
        }
        // A gap: the first instant whose offset is the new one, between the two candidates.
        var low = local - after  // still on the old offset
        var high = local - before  // already on the new offset
        let oldOffset = offset(at: low)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(at: middle) == oldOffset { low = middle } else { high = middle }
        }
        return (high, .gap)
    }

    /// The local date and time at `instant` (seconds since the epoch).
    /// The first instant of the `days` calendar days that end with the date of `now`: local
    /// midnight `days - 1` days before (`history --days`, `stats --days`).
    public mutating func startOfDays(_ days: Int, endingAt now: Int) -> Int {
        resolve(local(at: now).date.adding(days: 1 - days), LocalTime.midnight).instant
    }

    public func local(at instant: Int) -> (date: CivilDate, time: LocalTime) {
        let local = instant + offset(at: instant)
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return (CivilDate(dayNumber: day), LocalTime(secondsOfDay: local - day * 86_400)!)
    }

    /// Whether any instant has this local date. Pacific/Apia skipped 2011-12-30 entirely.
    public mutating func exists(_ date: CivilDate) -> Bool {
        if dayOffset(date) != nil { return true }
        let midnight = resolve(date, LocalTime.midnight)
        return local(at: midnight.instant).date == date
    }

    /// The offset that holds throughout `date` and the margins around it, or nil near a transition.
    public mutating func uniformOffset(on date: CivilDate) -> Int? {
        dayOffset(date)
    }

    private mutating func dayOffset(_ date: CivilDate) -> Int? {
        if let cached = uniformOffset[date.dayNumber] { return cached }
        let start = date.dayNumber * 86_400
        // Local midnight lies between start-14h and start+12h in every zone; sample beyond both ends.
        let samples = [start - 15 * 3600, start + 43_200, start + 86_400 + 13 * 3600]
        let offsets = samples.map { offset(at: $0) }
        let result: Int? = offsets.allSatisfy { $0 == offsets[0] } ? offsets[0] : nil
        uniformOffset[date.dayNumber] = result
        return result
    }
}
