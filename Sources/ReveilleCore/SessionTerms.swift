/// Where a ring session is (docs/guide/ringing.md, "When an alarm rings"): `ringing` → (`snoozed` → `ringing`)* → `dismissed`, or
/// `auto-stopped` after the longest ring time. `missed` records an occurrence that never rang.
public enum SessionState: String, Codable, Sendable, Hashable {
    case ringing
    case snoozed
    case dismissed
    case autoStopped = "auto-stopped"
    case missed

    /// Still needs the sleeper.
    public var isActive: Bool { self == .ringing || self == .snoozed }
}

/// What an answer to a ring's problem did.
public enum AnswerOutcome: Sendable, Hashable {
    /// It stopped the ring.
    case dismissed
    /// Right, with more problems to go (math standing in for a lost reader's tag).
    case rightWithMoreToGo
    /// Wrong: a new problem is asked.
    case wrong
}

/// How a session was dismissed.
public enum DismissalMethod: String, Codable, Sendable, Hashable {
    case math
    case tag
}

/// What the hooks are told happened.
public enum HookEvent: String, Codable, Sendable, Hashable, CaseIterable {
    case fire
    case snooze
    case dismiss
    case missed
    case autoStop = "auto-stop"
    /// The wake-up check asks "Are you up?" (`wake-check`), was answered (`awake`), or was not
    /// (`wake-check-failed`, the alarm then rings again as a new session).
    case wakeCheck = "wake-check"
    case awake
    case wakeCheckFailed = "wake-check-failed"
    /// The sunrise before a ring with `--lead` begins (for a lamp).
    case lead
    /// No sound device plays the ringing alarm (each one failed or stalled).
    case silent
    /// An app's time runs out in a few minutes (docs/guide/apps.md, "App time windows and daily limits"); not a ring event.
    case appWarning = "app-warning"
    /// A reminder chimed (docs/guide/reminders.md, "Reminders"); not a ring event.
    case chime
}

/// What the edges must do after a transition. The core decides; the daemon acts.
public enum RingAction: Hashable, Sendable {
    /// Start (or restart) the alarm sound: fade in from quiet to the alarm's volume.
    case startAudio
    /// Stop the sound now.
    case stopAudio
    /// Lower the sound while the sleeper answers.
    case attenuate
    /// Bring the sound back to the alarm's volume.
    case restoreVolume
    /// It rang unanswered for the alarm's `--escalate-after`: full volume, from now on.
    case escalate
    case runHook(HookEvent)
    /// A one-shot alarm has rung: turn it off.
    case disableAlarm(id: Int)
}

/// Limits that apply to every session.
public struct RingPolicy: Sendable, Hashable {
    /// Ringing longer than this without an answer stops, recorded as unattended; 0 means never.
    public var maxRingSeconds: Int
    /// How long the sound stays low after a problem is asked for.
    public var attenuationSeconds: Int
    /// How long the wake-up check waits for an answer (`[alarm] wake_check_seconds`).
    public var wakeCheckWaitSeconds: Int
    /// How long before it the next ring may be dismissed early (`early_dismiss_minutes`).
    public var earlyDismissSeconds: Int

    public init(
        maxRingSeconds: Int = 30 * 60, attenuationSeconds: Int = 60, wakeCheckWaitSeconds: Int = 60,
        earlyDismissSeconds: Int = 3600
    ) {
        self.earlyDismissSeconds = earlyDismissSeconds
        self.maxRingSeconds = maxRingSeconds
        self.attenuationSeconds = attenuationSeconds
        self.wakeCheckWaitSeconds = wakeCheckWaitSeconds
    }
}

/// A request the session refuses, with what to do instead.
public struct RingRefusal: Error, Equatable, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}
