import ReveilleCore

/// The answer to "may this app start now, for this user, with this much used today?".
public struct AppDecision: Hashable, Sendable {
    public var allowed: Bool
    /// Why, in words: `allowed until 20:00 (35 of 60 min left today)`.
    public var reason: String
    /// When the answer changes next (a window opens or closes, the limit is reached, a new day);
    /// nil: it does not.
    public var nextChange: Int?
    /// Allowed: how long it may run from now; nil without end.
    public var secondsLeft: Int?
    /// Refused because no window of the app is open now (a grant of minutes does not open one).
    public var outsideWindow = false

    public init(allowed: Bool, reason: String, nextChange: Int?, secondsLeft: Int?) {
        self.allowed = allowed
        self.reason = reason
        self.nextChange = nextChange
        self.secondsLeft = secondsLeft
    }
}

/// Decides by an app's windows and daily limit, in local wall-clock time (windows follow the
/// clock on DST days: a window covering a skipped hour is shorter that day). Pure: the instant,
/// the zone, the usage and the grant come in as data.
public enum AppEvaluator {
    /// `isPerson`: whether `user` is one of the people who use the machine (not root, not a system
    /// account): an app whose `users` are left out limits only them. `openUntil`: an admin opened
    /// the app now, outside its hours, until then (`apps grant --open-now`); the limit still holds.
    public static func decide(
        _ rule: AppRule, user: String, isPerson: Bool = true, at instant: Int, resolver: inout ZoneResolver,
        usedSeconds: Int, grantMinutes: Int = 0, openUntil: Int? = nil, holidays: Set<CivilDate> = []
    ) -> AppDecision {
        guard rule.enabled else {
            return AppDecision(
                allowed: true, reason: "not limited (disabled in the policy)", nextChange: nil, secondsLeft: nil)
        }
        guard rule.applies(to: user, isPerson: isPerson) else {
            return AppDecision(allowed: true, reason: "not limited for \(user)", nextChange: nil, secondsLeft: nil)
        }
        guard rule.isConfigured else {
            return AppDecision(
                allowed: false,
                reason:
                    "not set up yet: an admin chooses its hours and daily limits (reveille apps edit \(rule.name), or Apps on the clock's page)",
                nextChange: nil, secondsLeft: 0)
        }
        let today = resolver.local(at: instant).date
        let opened = openUntil.flatMap { $0 > instant ? instant..<$0 : nil }
        let intervals = allowedIntervals(rule, around: today, resolver: &resolver, opened: opened)
        let nextMidnight = resolver.resolve(today.adding(days: 1), LocalTime.midnight).instant
        let limit = rule.limit(on: today, holiday: holidays.contains(today)).map { ($0 + grantMinutes) * 60 }
        if let limit, usedSeconds >= limit {
            let next = opening(intervals, atOrAfter: nextMidnight)
            return AppDecision(
                allowed: false,
                reason:
                    "today's \(counted(limit / 60, "minute")) \(limit / 60 == 1 ? "is" : "are") used up\(grantMinutes > 0 ? " (with a grant of \(grantMinutes))" : "")"
                    + (next.map { "; allowed again \(when($0, from: instant, resolver: &resolver))" } ?? ""),
                nextChange: next, secondsLeft: 0)
        }
        guard let current = intervals.first(where: { $0.lowerBound <= instant && instant < $0.upperBound }) else {
            let next = opening(intervals, atOrAfter: instant)
            var refusal = AppDecision(
                allowed: false,
                reason: "outside its hours (\(hours(rule, on: today)) today)"
                    + (next.map { "; allowed from \(when($0, from: instant, resolver: &resolver))" } ?? ""),
                nextChange: next, secondsLeft: 0)
            refusal.outsideWindow = true
            return refusal
        }
        // An interval reaching the end of the horizon looked at has no end worth telling.
        let horizon = resolver.resolve(today.adding(days: 8), LocalTime.midnight).instant
        let windowLeft: Int? = current.upperBound >= horizon ? nil : current.upperBound - instant
        let limitLeft = limit.map { $0 - usedSeconds }
        let left = [windowLeft, limitLeft].compactMap { $0 }.min()
        var reason = "allowed"
        if let windowLeft, windowLeft == left {
            reason += " until \(when(current.upperBound, from: instant, resolver: &resolver))"
        }
        if let opened,
            !allowedIntervals(rule, around: today, resolver: &resolver).contains(where: {
                $0.contains(instant)
            })
        {
            reason += " (opened by an admin until \(when(opened.upperBound, from: instant, resolver: &resolver)))"
        }
        if let limit, let limitLeft {
            // Started minutes count as left, used ones are shown whole: the two add up to the limit.
            reason += " (\((limitLeft + 59) / 60) of \(limit / 60) min left today)"
        }
        return AppDecision(allowed: true, reason: reason, nextChange: left.map { instant + $0 }, secondsLeft: left)
    }

    /// The instants the app may run, from the day before `date` to a week after, merged where
    /// they touch (a window ending at midnight and one starting then are one). Without windows:
    /// one interval without end.
    static func allowedIntervals(
        _ rule: AppRule, around date: CivilDate, resolver: inout ZoneResolver, opened: Range<Int>? = nil
    ) -> [Range<Int>] {
        guard let windows = rule.windows else { return [Int.min..<Int.max] }
        var spans: [Range<Int>] = opened.map { [$0] } ?? []
        for offset in -1...8 {
            let day = date.adding(days: offset)
            for window in windows[day.weekday] ?? [] {
                let start = resolver.resolve(day, LocalTime(secondsOfDay: window.start)!).instant
                let endDay = window.crossesMidnight || window.end == 86_400 ? day.adding(days: 1) : day
                let end = resolver.resolve(endDay, LocalTime(secondsOfDay: window.end % 86_400)!).instant
                if start < end { spans.append(start..<end) }
            }
        }
        spans.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for span in spans {
            if let last = merged.last, span.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// The day's windows as words: `15:00–20:00`, `none`.
    static func hours(_ rule: AppRule, on date: CivilDate) -> String {
        let windows = rule.windows?[date.weekday] ?? []
        return windows.isEmpty
            ? "none" : windows.map { $0.description.replacing("-", with: "–") }.joined(separator: ", ")
    }

    /// The first allowed instant at or after `instant`.
    static func opening(_ intervals: [Range<Int>], atOrAfter instant: Int) -> Int? {
        if intervals.contains(where: { $0.lowerBound <= instant && instant < $0.upperBound }) { return instant }
        return intervals.first { $0.lowerBound > instant }?.lowerBound
    }

    /// `20:00` today, else `Sat 07:00`.
    static func when(_ target: Int, from instant: Int, resolver: inout ZoneResolver) -> String {
        let now = resolver.local(at: instant)
        let then = resolver.local(at: target)
        let clock = then.time.hoursAndMinutes
        return then.date == now.date ? clock : "\(then.date.weekday.displayName) \(clock)"
    }
}
