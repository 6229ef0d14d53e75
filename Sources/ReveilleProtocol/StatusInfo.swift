import ReveilleCore

// `status`: the daemon, its devices and its resources.

public struct StatusInfo: Codable, Sendable, Equatable {
    public var version: String
    public var uptimeSeconds: Int
    public var timeZone: String
    /// Where the zone's rules come from: `tzdata 2025b`, or the built-in copy when the system has none.
    public var timeZoneRules: String?
    /// Calendars that could not be read: `calendar NAME: why (since when); ...`.
    public var calendarProblems: [String]?
    /// What is wrong with the state on disk: a full disk, a restore from the backup at start.
    public var stateProblems: [String]?
    /// Set while the clock reads before the last instant handled and nothing rings: why, and until when.
    public var clockWaiting: String?
    /// The next reminder to chime: `2026-11-27 16:00 check-in`.
    public var nextReminder: String?
    /// The daemon's local time, `YYYY-MM-DD HH:MM:SS`.
    public var now: String
    /// Seconds since the epoch, by the daemon's clock.
    public var nowInstant: Int
    /// Whether alarms ring: on, off until resumed, or paused until `pausedUntil`.
    public var master: MasterState
    /// False when every reminder is switched off (`reveille reminders off`); nil: on.
    public var remindersOn: Bool?
    public var pausedUntil: String?
    public var alarmCount: Int
    public var enabledCount: Int
    public var nextRing: RingInfo?
    /// The caller's rights.
    public var role: Role
    /// The child a browser paired for them speaks as (`web pair --for`); nil for anyone else.
    public var person: String?
    /// The alarm ringing or snoozed now.
    public var session: SessionInfo?
    /// The wake-up check waiting to ask, or asking "Are you up?" now.
    public var wakeCheck: WakeCheckInfo?
    /// The sunrise before the next ring, while it lasts.
    public var sunrise: SunriseInfo?
    /// The next ring may be dismissed early now (`dismiss --next`), with its challenge.
    public var earlyDismissal: Bool?
    /// The instant up to which the clock has looked at what comes due (rung, recorded as missed, or
    /// nothing due): a script that moved time waits for this rather than for a while.
    public var judgedThrough: Int?
    /// An alarm rings and no sound device works: it is not heard.
    public var silent: Bool?
    /// The NFC reader's health.
    public var reader = ReaderState(.notConfigured)
    /// What the audio output is doing.
    public var sound: String = ""
    /// How app launches are limited: by fanotify, or only through `reveille run`.
    public var appGuard = AppGuardState(mode: .starting, detail: "")
    /// The bedside buttons and keypads, configured or found.
    public var inputs: [InputState] = []
    /// The machine's network, as systemd-networkd sees it; nil where it manages none (or under
    /// `--root`).
    public var network: NetworkInfo?
    /// The voice: `espeak-ng, voice en`, `off`, or why it is silent.
    public var voice = ""
    /// What the daemon has used since it started.
    public var resources: ResourceUse?
    /// reveille.toml was changed and refused at a reload (SIGHUP): why, with file:line, and since
    /// when; the settings in use stay those of the start.
    public var settingsRejected: String?
    /// reveille.toml was changed and loads, but would weaken a committed ring: it applies after
    /// that ring; why, and since when.
    public var settingsWaiting: String?
    /// True until the first boot's set-up is done on the clock's screen (`firstSetup`).
    public var setupPending: Bool?
    /// Night by the clock (21:00 to 07:00, `Backlight.isNight`): the page's own night mode follows it.
    public var night: Bool?
    /// The display's backlight, when the daemon drives one: its name, level and brightness.
    public var backlight: String?
    /// The clock's own set-up network ("Reveille-XXXX") while it is open: a phone on it sets up
    /// the clock (hardware.md, "Wi-Fi").
    public var setupNetwork: String?
    /// Rules and overrides that began to ring on their own with an upgrade (for a month after it).
    public var layersRingingAlone: [String]?

    public init(
        version: String, uptimeSeconds: Int, timeZone: String, now: String, nowInstant: Int, master: MasterState,
        pausedUntil: String?, alarmCount: Int, enabledCount: Int, nextRing: RingInfo?, role: Role
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.timeZone = timeZone
        self.now = now
        self.nowInstant = nowInstant
        self.master = master
        self.pausedUntil = pausedUntil
        self.alarmCount = alarmCount
        self.enabledCount = enabledCount
        self.nextRing = nextRing
        self.role = role
    }
}

/// The NFC reader's health, typed: clients decide on `condition`, and show `description`.
public struct ReaderState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Condition: String, Codable, Sendable {
        case notConfigured = "not-configured"
        case ok
        case absent
        case failing
    }

    public var condition: Condition
    /// The device's name when ok; why, when absent or failing.
    public var detail: String

    public init(_ health: ReaderHealth) {
        switch health {
        case .notConfigured: (condition, detail) = (.notConfigured, "")
        case .ok(let device): (condition, detail) = (.ok, device)
        case .absent(let why): (condition, detail) = (.absent, why)
        case .failing(let why): (condition, detail) = (.failing, why)
        }
    }

    public var health: ReaderHealth {
        switch condition {
        case .notConfigured: .notConfigured
        case .ok: .ok(detail)
        case .absent: .absent(detail)
        case .failing: .failing(detail)
        }
    }

    public var description: String { health.description }
}

/// How app launches are limited, typed.
public struct AppGuardState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Mode: String, Codable, Sendable {
        /// Not set up yet.
        case starting
        /// fanotify answers every exec of a listed executable.
        case fanotify
        /// fanotify is unavailable: only `reveille run` asks first.
        case gateOnly = "gate-only"
    }

    public var mode: Mode
    /// What is guarded, or why fanotify is unavailable.
    public var detail: String
    /// apps.toml was refused: why (file:line), since when, and what is enforced meanwhile.
    public var rejected: String?
    /// The mount points of the file systems whose execs the guard answers (one per file system).
    public var watched: [String]?
    /// The guard's thread has been answering one exec for this long (seconds): execs are stalled.
    public var stalledSeconds: Double?

    public init(
        mode: Mode, detail: String, rejected: String? = nil, watched: [String]? = nil, stalledSeconds: Double? = nil
    ) {
        self.mode = mode
        self.detail = detail
        self.rejected = rejected
        self.watched = watched
        self.stalledSeconds = stalledSeconds
    }

    public var description: String {
        switch mode {
        case .starting: "starting"
        case .fanotify:
            "fanotify: \(detail)"
                + (stalledSeconds.map { "; STALLED: one exec unanswered for \(Int($0)) s" } ?? "")
        case .gateOnly: "gate only: 'reveille run NAME' asks first (fanotify unavailable: \(detail))"
        }
    }
}

/// A bedside button or keypad (an evdev device), for `status`, `doctor` and `watch`.
public struct InputState: Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Condition: String, Codable, Sendable {
        /// Open and read.
        case ok
        /// Configured, but not there (yet): it is picked up when it appears.
        case absent
        /// It was there and went away.
        case unplugged
        /// There, but it cannot be opened (permissions).
        case failing
    }

    public var path: String
    /// The device's name when known (`Dell USB Keypad`).
    public var name: String
    public var condition: Condition
    public var detail: String

    public init(path: String, name: String, condition: Condition, detail: String) {
        self.path = path
        self.name = name
        self.condition = condition
        self.detail = detail
    }

    /// `ok: gpio-keys (/dev/input/event0)`, `unplugged: /dev/input/by-id/usb-keypad`.
    public var description: String {
        let what = name.isEmpty || name == path ? path : "\(name) (\(path))"
        return "\(condition.rawValue): \(what)\(detail.isEmpty ? "" : "; \(detail)")"
    }
}

/// The daemon's own resource use since it started (getrusage, all threads).
public struct ResourceUse: Codable, Sendable, Equatable {
    /// User plus system CPU time.
    public var cpuMicroseconds: Int
    /// Times a thread waited and was woken (voluntary context switches).
    public var wakeups: Int
    /// Times a thread was preempted (involuntary context switches).
    public var preemptions: Int
    /// Largest resident set size.
    public var peakRSSKilobytes: Int
    /// Resident set size now, and how much of it is anonymous (heap, stacks) rather than pages of
    /// the executable and libraries.
    public var rssKilobytes: Int
    public var anonymousKilobytes: Int
    /// Open descriptors, and the soft limit (RLIMIT_NOFILE); nil from a daemon that did not count.
    public var openDescriptors: Int?
    public var descriptorLimit: Int?
    /// inotify watches held, and the limit for the daemon's user (fs.inotify.max_user_watches).
    public var inotifyWatches: Int?
    public var inotifyWatchLimit: Int?
    public var threads: Int?

    /// "31 of 1024 descriptors, 6 inotify watches (of 65536), 4 threads", or nil.
    public var handlesText: String? {
        guard let openDescriptors, let descriptorLimit, let inotifyWatches, let threads else { return nil }
        let watchLimit = inotifyWatchLimit.map { " (of \($0))" } ?? ""
        return
            "\(openDescriptors) of \(descriptorLimit) descriptors open, \(inotifyWatches) inotify watches\(watchLimit), \(threads) threads"
    }

    public init(
        cpuMicroseconds: Int, wakeups: Int, preemptions: Int, peakRSSKilobytes: Int, rssKilobytes: Int,
        anonymousKilobytes: Int
    ) {
        self.cpuMicroseconds = cpuMicroseconds
        self.wakeups = wakeups
        self.preemptions = preemptions
        self.peakRSSKilobytes = peakRSSKilobytes
        self.rssKilobytes = rssKilobytes
        self.anonymousKilobytes = anonymousKilobytes
    }
}

/// The alarms' master switch as `status` reports it: `on`, `off` (until `reveille resume`) or
/// `paused` (until a date, in `pausedUntil`; a pause whose date has come reads `on`).
public enum MasterState: String, Codable, Sendable, Equatable {
    case on, off, paused
}
