import FoundationEssentials

/// What a key of a bedside control does (README, "Buttons and keypad"). Which kernel key codes
/// mean what is `KeyMap`'s business; this is the meaning.
public enum BedsideKey: Hashable, Sendable, CustomStringConvertible {
    /// Snoozes a ringing alarm; held for the long-press length, says the problem again.
    case snooze
    /// Begins answering (the problem is asked for and said); pressed again, says it again.
    case answer
    case digit(Int)
    case backspace
    /// Submits the digits typed.
    case enter

    public var description: String {
        switch self {
        case .snooze: "snooze"
        case .answer: "answer"
        case .digit(let value): "digit \(value)"
        case .backspace: "backspace"
        case .enter: "enter"
        }
    }
}

/// A key event's motion, as evdev reports it: value 1, 0 and 2.
public enum KeyMotion: Sendable, Equatable {
    case press
    case release
    /// The kernel's autorepeat while the key is held.
    case autorepeat
}

/// Kernel key codes to their meaning.
public struct KeyMap: Sendable, Equatable {
    public var keys: [UInt16: BedsideKey]

    public init(_ keys: [UInt16: BedsideKey] = [:]) {
        self.keys = keys
    }

    public subscript(code: UInt16) -> BedsideKey? { keys[code] }

    public var codes: Set<UInt16> { Set(keys.keys) }
}

/// What the ring is doing, as far as the keys care.
public enum RingPhase: Sendable, Equatable {
    case idle
    case ringing
    case snoozed
    /// Nothing rings and the wake-up check asks "Are you up?": any key answers it.
    case checking
    /// Nothing rings, and a reminder chimed a moment ago: the snooze key asks for it again.
    case chimed

    /// Nothing rings and nothing asks.
    var isQuiet: Bool { self == .idle || self == .chimed }
}

/// What the keys ask of the alarm clock. The daemon carries each out through the machine, as the
/// same command from `reveille` would be, and says the outcome aloud.
public enum KeypadIntent: Sendable, Equatable {
    case snooze
    /// Ask for the problem, lower the sound and say the problem.
    case beginAnswering
    /// Say the problem (or "tap your tag") again.
    case repeatProblem
    case submit(Int)
    /// The digits typed so far, after a digit or a backspace.
    case typed(String)
    /// Nothing was typed for a while: the digits are dropped.
    case cleared
    /// A press while nothing rings: say the time and the next ring.
    case sayTimeAndNext
    /// A press while the wake-up check asks: "yes, I am up".
    case confirmAwake
    /// The snooze key right after a chime: "again in 10 minutes".
    case chimeAgain
}

/// The keypad's own state: the digits typed, a held snooze key, the pause that clears an answer.
/// Pure: keys and `now` (monotonic seconds) in, intents out; `deadline` says when `expire` is due.
///
/// - The first digit, enter, or the answer key begins answering: the problem is asked for and
///   said. That first key is not part of the answer: the sleeper has not heard the problem yet.
/// - The snooze key acts on release, so that holding it can mean something else: held for
///   `longPressSeconds`, it says the problem again (at that moment, not at release).
/// - Digits typed then left alone for `answerTimeoutSeconds` are cleared.
/// - With nothing ringing, a snooze or answer key says the time and the next ring; other keys do
///   nothing.
public struct BedsideKeypad: Sendable {
    public var longPressSeconds: Double
    public var answerTimeoutSeconds: Double
    /// An answer longer than this is not an answer to any problem Reveille asks.
    public static let maximumDigits = 6

    public private(set) var digits = ""
    public private(set) var answering = false
    private var snoozeHeldSince: Double?
    private var longPressDone = false
    private var lastKeyAt: Double?

    public init(longPressSeconds: Double = 1.5, answerTimeoutSeconds: Double = 20) {
        self.longPressSeconds = longPressSeconds
        self.answerTimeoutSeconds = answerTimeoutSeconds
    }

    /// When `expire` must be called: a held snooze key reaching the long press, or typed digits
    /// timing out.
    public var deadline: Double? {
        let longPress = longPressDone ? nil : snoozeHeldSince.map { $0 + longPressSeconds }
        let timeout = answering ? lastKeyAt.map { $0 + answerTimeoutSeconds } : nil
        return [longPress, timeout].compactMap { $0 }.min()
    }

    public mutating func handle(_ key: BedsideKey, _ motion: KeyMotion, phase: RingPhase, now: Double)
        -> [KeypadIntent]
    {
        if phase.isQuiet || phase == .checking {
            answering = false
            digits = ""
        }
        if phase == .checking {
            snoozeHeldSince = nil
            return motion == .press ? [.confirmAwake] : []
        }
        switch key {
        case .snooze:
            return snoozeKey(motion, phase: phase, now: now)
        case .answer:
            guard motion == .press else { return [] }
            guard !phase.isQuiet else { return [.sayTimeAndNext] }
            return begin(now) ?? [.repeatProblem]
        case .digit(let value):
            guard motion != .release, !phase.isQuiet else { return [] }
            if let begun = begin(now) { return begun }
            guard digits.count < Self.maximumDigits else { return [] }
            digits.append(String(value))
            return [.typed(digits)]
        case .backspace:
            guard motion != .release, !phase.isQuiet, answering else { return [] }
            lastKeyAt = now
            guard !digits.isEmpty else { return [] }
            digits.removeLast()
            return [.typed(digits)]
        case .enter:
            guard motion == .press, !phase.isQuiet else { return [] }
            if let begun = begin(now) { return begun }
            guard let value = Int(digits) else { return [.repeatProblem] }
            digits = ""
            return [.submit(value)]
        }
    }

    /// Due work at `now`: the long press of a held snooze key, or clearing digits left alone.
    public mutating func expire(now: Double, phase: RingPhase) -> [KeypadIntent] {
        var intents: [KeypadIntent] = []
        if let since = snoozeHeldSince, !longPressDone, now >= since + longPressSeconds {
            longPressDone = true
            if phase == .ringing || phase == .snoozed { intents.append(.repeatProblem) }
        }
        if answering, let last = lastKeyAt, now >= last + answerTimeoutSeconds {
            answering = false
            lastKeyAt = nil
            if !digits.isEmpty { intents.append(.cleared) }
            digits = ""
        }
        return intents
    }

    /// The session ended: forget everything typed or held.
    public mutating func reset() {
        self = BedsideKeypad(longPressSeconds: longPressSeconds, answerTimeoutSeconds: answerTimeoutSeconds)
    }

    /// Starts answering if it has not begun; nil when it had (the key then does its own job).
    private mutating func begin(_ now: Double) -> [KeypadIntent]? {
        lastKeyAt = now
        guard !answering else { return nil }
        answering = true
        digits = ""
        return [.beginAnswering]
    }

    private mutating func snoozeKey(_ motion: KeyMotion, phase: RingPhase, now: Double) -> [KeypadIntent] {
        switch motion {
        case .press:
            snoozeHeldSince = now
            longPressDone = false
            return []
        case .autorepeat:
            return expire(now: now, phase: phase).filter { $0 == .repeatProblem }
        case .release:
            guard let since = snoozeHeldSince else { return [] }
            snoozeHeldSince = nil
            if longPressDone { return [] }
            if now - since >= longPressSeconds { return phase.isQuiet ? [] : [.repeatProblem] }
            switch phase {
            case .idle: return [.sayTimeAndNext]
            case .chimed: return [.chimeAgain]
            case .ringing:
                answering = false
                digits = ""
                return [.snooze]
            case .snoozed, .checking: return []
            }
        }
    }
}

/// What the voice says: the words are decided here, the daemon only synthesizes them.
public enum Spoken {
    /// What follows a chime: `Reminder: tea.`, `Reminders: check-in. Dentist, in 15 minutes, at
    /// Hauptstraße 5.` A calendar chime says how far off its event is and where; a reminder's body
    /// follows its title.
    /// What the clock says when a chime is asked for again.
    public static func again(_ chime: Chime) -> String {
        "\(sentence(chime.text)) Again in \(counted(Chime.againSeconds / 60, "minute"))."
    }

    public static func reminders(_ chimes: [Chime]) -> String {
        let lines = chimes.map { chime -> String in
            let place = chime.location.map { ", at \($0)" } ?? ""
            switch chime.minutesBefore {
            case nil: return chime.body.map { "\(sentence(chime.text)) \($0)" } ?? chime.text
            case 0?: return "\(chime.text), now\(place)"
            case let minutes?: return "\(chime.text), in \(counted(minutes, "minute"))\(place)"
            }
        }
        return (chimes.count == 1 ? "Reminder: " : "Reminders: ") + lines.map(sentence).joined(separator: " ")
    }

    /// A title that ends a sentence: `How did it go?` stays, `training` becomes `training.`.
    private static func sentence(_ text: String) -> String {
        text.last.map { ".?!".contains($0) } == true ? text : text + "."
    }

    /// `90 × 4 + 61` → `90 times 4, plus 61`; `37 + 48` → `37 plus 48`. espeak-ng reads the
    /// numbers as words.
    public static func problem(_ problem: MathProblem) -> String {
        let products = problem.text.contains("×")
        return problem.text.replacing(" × ", with: " times ")
            .replacing(" + ", with: products ? ", plus " : " plus ")
    }

    public static func wrongAnswer(newProblem: MathProblem) -> String {
        "Wrong. Here is a new one. " + problem(newProblem)
    }

    public static let tapYourTag = "Tap your tag on the reader."

    /// The wake-up check's question, after its tone.
    public static let areYouUp = "Are you up? Press any key, or tap the screen."

    /// A snooze refused because none are left.
    public static func noSnoozesLeft(challenge: Challenge) -> String {
        switch challenge {
        case .nfc: "No snoozes left. Tap your tag on the reader."
        case .math, .any: "No snoozes left. Press a number key for the problem."
        }
    }

    /// `It is 6 45. The next alarm rings tomorrow at 7 30.`
    public static func timeAndNext(now: LocalTime, next: (day: String, time: LocalTime)?) -> String {
        let sentence = "It is \(clock(now))."
        guard let next else { return sentence + " No alarm is set to ring." }
        return sentence + " The next alarm rings \(next.day) at \(clock(next.time))."
    }

    /// `6 45`, `7 o'clock`, `7 oh 5`: how a clock is read aloud.
    static func clock(_ time: LocalTime) -> String {
        switch time.minute {
        case 0: "\(time.hour) o'clock"
        case 1..<10: "\(time.hour) oh \(time.minute)"
        default: "\(time.hour) \(time.minute)"
        }
    }
}
