import FoundationEssentials

// What the clock machine tells the edge to do (`ClockAction`), what it publishes (`ClockChange`),
// and the small types its answers are made of.

/// A step inside the machine: a session's own action, or a line for the log.
enum SessionStep: Hashable, Sendable {
    case ring(RingAction)
    case log(LogLevel, String)
}

/// What the edges must do, in order. The daemon carries each out and decides nothing itself.
public enum ClockAction: Hashable, Sendable {
    /// Start (or restart) the alarm sound with these settings, fading in.
    case play(RingSettings)
    /// Stop the sound now.
    case stopSound
    /// Lower the sound while the sleeper answers (true), or bring it back (false).
    case attenuate(Bool)
    /// The ring went unanswered for its `--escalate-after`: full volume.
    case escalate
    /// Poll the NFC reader for taps (true), or let it idle (false).
    case pollReader(Bool)
    case runHook(HookEvent, RingSession)
    /// Write these sessions (by id: new rows or updates) and, when given, how far occurrences are
    /// handled, in one transaction.
    case persist([RingSession], evaluatedThrough: Int?)
    /// Delete these missed records: made while the clock read wrong, for occurrences that a
    /// corrected clock finds still to come (they ring in their time, and are recorded then).
    case withdrawMissed([Int])
    /// A one-shot alarm has rung: turn it off in the store.
    case disableAlarm(id: Int)
    /// Say this aloud (the bedside voice): the machine words it (`Spoken`).
    case say(String)
    /// An app's time runs out soon: the short warning tone.
    case warningTone
    /// An app's time runs out soon: the hooks' `app-warning` event.
    case appWarningHook(app: String, user: String, secondsLeft: Int)
    /// The machine has judged every day before `before` to its end: delete their date overrides,
    /// and turn off their one-shots (which did not ring: one that rang was turned off then).
    case purge(before: CivilDate)
    /// Delete this date override: a holiday now gates its day (`ScheduleState.holidayGating`).
    case removeOverride(id: Int)
    /// Keep these committed rings standing against the calendars' holidays (and no others), so
    /// that a restart keeps them (`ScheduleState.heldAgainstHolidays`).
    case keepHeldRings(Set<HeldRing>)
    case log(LogLevel, String)
    /// Tell those who watch (`reveille status --watch`, the buttons, the screen).
    case publish(ClockChange)
    /// Look again at this instant (seconds since the epoch, wall clock) at the latest.
    case wake(at: Int)
    /// The sunrise before a ring begins: the hooks' `lead` event (a lamp).
    case lead(Sunrise)
    /// `--lead-sound`: the alarm's sound at a quarter of its volume (fading in over a few
    /// seconds) until the ring takes over.
    case leadSound(RingSettings)
    /// Play a reminder's chime once: no challenge, no snooze.
    case chime(Chime)
    /// Run the chime's `--unless` command, then report with `chimeChecked`.
    case checkChime(Chime)
    /// Keep that the chime was played, skipped or missed, so that it never plays twice.
    case recordChime(Chime, ChimeOutcome, at: Int)
    /// The hooks' `chime` event, for each chime played (a phone, a lamp).
    case chimeHook(Chime)
}

/// A change watchers are told about.
public enum ClockChange: Hashable, Sendable {
    /// A session rang, was snoozed, rang again, fell back to math, or ended (dismissed, auto-stopped).
    case session(RingSession)
    /// An occurrence was recorded as missed.
    case missed(RingSession)
    /// A dismissed session's wake-up check asks "Are you up?", passed, or failed.
    case wakeCheck(RingSession)
    /// The sunrise before the next ring began (nil: it ended, with the ring or because it moved).
    case sunrise(Sunrise?)
    /// No sound device plays the ringing alarm (true), or one does again (false).
    case silent(Bool)
    /// The next ring moved (nil: none ahead).
    case nextRing(Int?)
    /// A tag lies on the reader during a session (true), or was lifted (false).
    case tagOnReader(Bool)
    case readerHealth(ReaderHealth)
    /// Alarms, rules, overrides or the master switch changed, whether or not the next ring moved.
    case schedule
    /// A reminder chimed.
    case chime(Chime)
    /// A date override was removed: its day became a holiday of the alarm it names.
    case overrideRemoved(DateOverride, holiday: String)
}

/// The light before a ring with `--lead` (docs/guide/ringing.md, "A sunrise"): from `startsAt` until it rings.
public struct Sunrise: Hashable, Sendable {
    public var alarmID: Int
    public var label: String
    public var startsAt: Int
    public var ringsAt: Int
    /// `--lead-sound`: when the quiet sound begins (the lead's last minute).
    public var soundAt: Int?

    public init(alarmID: Int, label: String, startsAt: Int, ringsAt: Int, soundAt: Int? = nil) {
        self.alarmID = alarmID
        self.label = label
        self.startsAt = startsAt
        self.ringsAt = ringsAt
        self.soundAt = soundAt
    }

    /// How long before the ring a lead sound begins (or the whole lead, if shorter).
    public static let soundSeconds = 60
}

/// How a request that moves the session went: the session after it, or why it was refused.
public struct ClockReply: Sendable {
    public var result: Result<RingSession, RingRefusal>
    public var actions: [ClockAction]
}

/// How loud a line the machine asks for is.
public enum LogLevel: String, Hashable, Sendable {
    case debug, info, notice, warning, error
}

/// Where math problems come from: the system's randomness, or a seed (tests).
public struct ProblemRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64?

    /// The system's generator.
    public init() { state = nil }

    /// A reproducible sequence (SplitMix64).
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        guard var value = state else {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
        value &+= 0x9E37_79B9_7F4A_7C15
        state = value
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
