import Testing

@testable import ReveilleCore

/// The keypad's rules, with a manual monotonic clock: what each key asks for, the long press,
/// the answer's timeout, and what the voice says.
@Suite struct BedsideKeysTests {
    /// Presses and releases `key` at `now`.
    func tap(_ keypad: inout BedsideKeypad, _ key: BedsideKey, _ phase: RingPhase = .ringing, at now: Double = 0)
        -> [KeypadIntent]
    {
        keypad.handle(key, .press, phase: phase, now: now) + keypad.handle(key, .release, phase: phase, now: now + 0.1)
    }

    @Test func aShortPressOfSnoozeWhileRingingSnoozesOnRelease() {
        var keypad = BedsideKeypad(longPressSeconds: 1.5)
        #expect(keypad.handle(.snooze, .press, phase: .ringing, now: 10) == [])
        #expect(keypad.deadline == 11.5)
        #expect(keypad.handle(.snooze, .release, phase: .ringing, now: 10.2) == [.snooze])
        #expect(keypad.deadline == nil)
    }

    @Test func holdingSnoozeSaysTheProblemAgainAtTheLongPressNotAtRelease() {
        var keypad = BedsideKeypad(longPressSeconds: 1.5)
        _ = keypad.handle(.snooze, .press, phase: .ringing, now: 10)
        #expect(keypad.expire(now: 11.0, phase: .ringing) == [])
        #expect(keypad.expire(now: 11.5, phase: .ringing) == [.repeatProblem])
        // Released later: neither a snooze nor a second repeat.
        #expect(keypad.handle(.snooze, .release, phase: .ringing, now: 13) == [])
    }

    @Test func theKernelsAutorepeatAlsoReachesTheLongPress() {
        var keypad = BedsideKeypad(longPressSeconds: 1.0)
        _ = keypad.handle(.snooze, .press, phase: .ringing, now: 0)
        #expect(keypad.handle(.snooze, .autorepeat, phase: .ringing, now: 0.5) == [])
        #expect(keypad.handle(.snooze, .autorepeat, phase: .ringing, now: 1.1) == [.repeatProblem])
        #expect(keypad.handle(.snooze, .autorepeat, phase: .ringing, now: 1.2) == [])
        #expect(keypad.handle(.snooze, .release, phase: .ringing, now: 1.3) == [])
    }

    @Test func theFirstDigitBeginsAnsweringAndIsNotPartOfTheAnswer() {
        var keypad = BedsideKeypad()
        #expect(tap(&keypad, .digit(7)) == [.beginAnswering])
        #expect(keypad.answering)
        #expect(tap(&keypad, .digit(4), at: 1) == [.typed("4")])
        #expect(tap(&keypad, .digit(2), at: 2) == [.typed("42")])
        #expect(tap(&keypad, .backspace, at: 3) == [.typed("4")])
        #expect(tap(&keypad, .digit(1), at: 4) == [.typed("41")])
        #expect(tap(&keypad, .enter, at: 5) == [.submit(41)])
        #expect(keypad.digits == "")
        #expect(keypad.answering, "a wrong answer gets a new problem: answering goes on")
    }

    @Test func theAnswerKeyBeginsThenRepeats() {
        var keypad = BedsideKeypad()
        #expect(tap(&keypad, .answer) == [.beginAnswering])
        #expect(tap(&keypad, .answer, at: 1) == [.repeatProblem])
        #expect(tap(&keypad, .enter, at: 2) == [.repeatProblem], "enter with nothing typed says the problem again")
    }

    @Test func digitsLeftAloneAreClearedAfterThePause() {
        var keypad = BedsideKeypad(answerTimeoutSeconds: 20)
        _ = tap(&keypad, .digit(1), at: 0)
        _ = tap(&keypad, .digit(5), at: 5)
        #expect(keypad.deadline == 25)
        #expect(keypad.expire(now: 24.9, phase: .ringing) == [])
        #expect(keypad.expire(now: 25, phase: .ringing) == [.cleared])
        #expect(keypad.digits == "" && !keypad.answering)
        #expect(tap(&keypad, .digit(3), at: 30) == [.beginAnswering], "answering begins afresh")
    }

    @Test func anAnswerCannotGrowPastSixDigits() {
        var keypad = BedsideKeypad()
        _ = tap(&keypad, .answer)
        for index in 0..<9 { _ = tap(&keypad, .digit(9), at: Double(index + 1)) }
        #expect(keypad.digits == "999999")
    }

    @Test func withNothingRingingOnlySnoozeAndAnswerDoAnythingAndThatIsTheTime() {
        var keypad = BedsideKeypad()
        #expect(tap(&keypad, .snooze, .idle) == [.sayTimeAndNext])
        #expect(tap(&keypad, .answer, .idle) == [.sayTimeAndNext])
        #expect(tap(&keypad, .digit(5), .idle) == [])
        #expect(tap(&keypad, .enter, .idle) == [])
        #expect(tap(&keypad, .backspace, .idle) == [])
        #expect(!keypad.answering)
    }

    @Test func snoozeDuringASnoozeDoesNothingButDigitsStillAnswer() {
        var keypad = BedsideKeypad()
        #expect(tap(&keypad, .snooze, .snoozed) == [])
        #expect(tap(&keypad, .digit(1), .snoozed) == [.beginAnswering])
    }

    @Test func snoozeWhileTypingDropsTheDigits() {
        var keypad = BedsideKeypad()
        _ = tap(&keypad, .answer)
        _ = tap(&keypad, .digit(4), at: 1)
        #expect(tap(&keypad, .snooze, at: 2) == [.snooze])
        #expect(keypad.digits == "" && !keypad.answering)
    }

    @Test func resetForgetsAHeldKeyAndTheDigits() {
        var keypad = BedsideKeypad()
        _ = tap(&keypad, .answer)
        _ = tap(&keypad, .digit(4), at: 1)
        _ = keypad.handle(.snooze, .press, phase: .ringing, now: 2)
        keypad.reset()
        #expect(keypad.deadline == nil && keypad.digits == "" && !keypad.answering)
        #expect(keypad.handle(.snooze, .release, phase: .idle, now: 2.1) == [])
    }

    @Test func theProblemIsSaidInWords() {
        #expect(Spoken.problem(MathProblem(text: "90 × 4 + 61", answer: 421)) == "90 times 4, plus 61")
        #expect(Spoken.problem(MathProblem(text: "37 + 48", answer: 85)) == "37 plus 48")
        #expect(
            Spoken.problem(MathProblem(text: "23 × 47 + 18 × 64", answer: 2233)) == "23 times 47, plus 18 times 64")
        #expect(
            Spoken.wrongAnswer(newProblem: MathProblem(text: "10 + 20", answer: 30))
                == "Wrong. Here is a new one. 10 plus 20")
        #expect(Spoken.noSnoozesLeft(challenge: .nfc) == "No snoozes left. Tap your tag on the reader.")
        #expect(Spoken.noSnoozesLeft(challenge: .math) == "No snoozes left. Press a number key for the problem.")
    }

    @Test func theTimeIsReadAsAClockIs() {
        let next = (day: "tomorrow", time: LocalTime(hour: 7, minute: 0)!)
        #expect(
            Spoken.timeAndNext(now: LocalTime(hour: 6, minute: 45)!, next: next)
                == "It is 6 45. The next alarm rings tomorrow at 7 o'clock.")
        #expect(
            Spoken.timeAndNext(now: LocalTime(hour: 23, minute: 5)!, next: nil)
                == "It is 23 oh 5. No alarm is set to ring.")
    }
}

/// The snooze key right after a chime asks for it again; the time is said otherwise.
@Suite struct ChimeAgainKeyTests {
    @Test func theSnoozeKeyAfterAChimeAsksForItAgain() {
        var keypad = BedsideKeypad(longPressSeconds: 1.5)
        #expect(keypad.handle(.snooze, .press, phase: .chimed, now: 10) == [])
        #expect(keypad.handle(.snooze, .release, phase: .chimed, now: 10.2) == [.chimeAgain])
        #expect(keypad.handle(.snooze, .press, phase: .idle, now: 20) == [])
        #expect(keypad.handle(.snooze, .release, phase: .idle, now: 20.2) == [.sayTimeAndNext])
        // Digits while nothing rings do nothing, after a chime too.
        #expect(keypad.handle(.digit(4), .press, phase: .chimed, now: 30) == [])
    }

    @Test func againIsTheSameChimeTenMinutesOnWithItsLineCountingDown() throws {
        let zone = try #require(Zone(builtIn: "Europe/Berlin"))
        var event = Chime(
            key: "calendar:1:dentist:single:15", instant: 1_000, text: "Dentist", sound: nil, unless: "false",
            origin: "calendar family, 15 min before", day: date("2026-11-27"), minutesBefore: 15,
            location: "Hauptstraße 5", person: "kid1")
        var again = event.again(now: 1_060, zone: zone)
        #expect(again.key == "again:calendar:1:dentist:single:15@1660" && again.instant == 1_660)
        #expect(again.detail == "starting in 5 minutes, at Hauptstraße 5" && again.person == "kid1")
        #expect(again.unless == nil && again.origin == "again: calendar family, 15 min before")
        event.minutesBefore = 0
        again = event.again(now: 1_060, zone: zone)
        #expect(again.detail == "it started 10 minutes ago, at Hauptstraße 5")
        #expect(Spoken.again(again) == "Dentist. Again in 10 minutes.")
    }
}
