import ReveilleCore

/// The rules for asking for more time (docs/guide/apps.md, "A child's side"): a few minutes at a time, one
/// request waiting per user, a few a day, and a short reason.
public enum AppAsking {
    public static let minuteRange = 5...120
    public static let perDay = 5
    public static let whyLength = 200

    /// Why this request is refused, or nil. `waiting`: the user's requests not answered yet;
    /// `today`: all the user's requests today.
    public static func refusal(minutes: Int, why: String?, waiting: Int, today: Int) -> String? {
        guard minuteRange.contains(minutes), minutes % 5 == 0 else {
            return "--minutes \(minutes): ask for 5-120 minutes, in steps of 5"
        }
        if let why, why.count > whyLength { return "--why: keep it under \(whyLength) characters" }
        if waiting > 0 { return "you already asked; wait for the answer (reveille apps requests)" }
        if today >= perDay { return "you asked \(today) times today, the most there is; try again tomorrow" }
        return nil
    }
}
