import ReveilleCore

/// What `reveille-calendar expand` prints (one JSON object) for the daemon, which has calendars
/// read by that helper rather than linking libical: untrusted text is parsed in a process with no
/// capability and bounded memory and CPU, and the daemon receives plain data.
public struct CalendarExpansion: Codable, Sendable, Equatable {
    public var occurrences: [CalendarOccurrence]?
    public var error: CalendarError?
    /// The helper's effective capabilities while it parsed, in hex (none: `0`).
    public var capabilities: String

    public init(occurrences: [CalendarOccurrence]? = nil, error: CalendarError? = nil, capabilities: String) {
        self.occurrences = occurrences
        self.error = error
        self.capabilities = capabilities
    }
}
