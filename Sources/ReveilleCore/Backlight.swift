/// What the screen shows, as its page says (`screenLight`): the day's face, the night's dimmed
/// one, or nothing (the page's black screen after a quiet minute at night).
public enum ScreenLight: String, Codable, Sendable, CaseIterable {
    case day
    case night
    case dark
}

/// The display's backlight (hardware.md, "The screen's backlight"): how bright, from what the page
/// shows, whether an alarm needs the sleeper, and the hour. A ring or "Are you up?" is at full
/// brightness whatever the page says; otherwise the page's own state, which follows touches, the
/// bedside keys and its night mode; with no page yet (a reboot), the hour decides.
public enum Backlight {
    public enum Level: String, Sendable, Equatable {
        /// A ring, or "Are you up?": as bright as it goes.
        case full
        case day
        case night
        case off
    }

    /// Night by the clock: from 21:00 to 07:00, as the page's night mode.
    public static func isNight(hour: Int) -> Bool { hour >= 21 || hour < 7 }

    public static func level(page: ScreenLight?, needsSleeper: Bool, hour: Int) -> Level {
        if needsSleeper { return .full }
        switch page {
        case .day: return .day
        case .night: return .night
        case .dark: return .off
        case nil: return isNight(hour: hour) ? .night : .day
        }
    }

    /// The value for the device's `brightness` file: `percent` of `maximum`, at least 1 unless it
    /// is off (0 turns some panels' light off entirely).
    public static func brightness(_ level: Level, maximum: Int, dayPercent: Int, nightPercent: Int) -> Int {
        let percent: Int
        switch level {
        case .full: return maximum
        case .off: return 0
        case .day: percent = dayPercent
        case .night: percent = nightPercent
        }
        guard percent > 0 else { return 0 }
        return min(maximum, max(1, (maximum * percent + 50) / 100))
    }
}
