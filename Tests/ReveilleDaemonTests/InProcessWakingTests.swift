import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// What the machine decides about waking up, in-process on virtual time: the wake-up check
/// answered, the commitment's refusals and its challenge, a ring dismissed early, a reminder's
/// edits. The daemon's own words are checked as the CLI prints them (it adds "reveille: " to an
/// error); the end-to-end suites keep the CLI's parsing, its terminal, ALSA and the keys.
@Suite struct InProcessWakingTests {
    typealias Clock = InProcessRingTests.Clock

    /// Monday 2026-11-23, 23:00 in Berlin.
    static let night = RingTests.night

    func spec(_ time: String, label: String? = nil, commit: Int? = nil) throws -> AlarmSpec {
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse(time)
        spec.days = .daily
        spec.label = label
        spec.commitSeconds = commit
        return spec
    }

    func unlock(_ clock: Clock, _ id: Int) throws {
        let problem = try #require(clock.request(.unlock(alarmID: id, answer: nil)).unlock?.problem)
        #expect(clock.request(.unlock(alarmID: id, answer: solve(problem))).unlock?.unlocked == true)
    }

    /// `reveille awake` while the check asks passes it: nothing rings again, and history says so.
    @Test func awakeAnswersTheCheck() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        var alarm = try spec("7:00")
        alarm.wakeCheckSeconds = 60
        #expect(clock.request(.alarmAdd(spec: alarm)).ok)
        clock.passToWake()
        clock.dismissByMath()
        let early = clock.request(.awake)
        #expect(early.error?.message.contains("the wake-up check has not asked yet") == true, "\(early)")
        clock.passToWake()
        #expect(clock.request(.status).status?.wakeCheck?.state == "asking")
        let awake = clock.request(.awake)
        #expect(awake.ok, "\(awake.error?.message ?? "")")
        #expect(awake.message?.contains("wake-up check of alarm #1 passed") == true)
        clock.wall.advance(120)
        clock.daemon.controller.tick()
        #expect(clock.session == nil)
        #expect(clock.request(.history(days: 1)).history?.map(\.wakeCheck) == ["passed"])
        #expect(clock.request(.status).status?.wakeCheck == nil)
    }

    /// The night before a committed alarm, every way of weakening it is refused with what to do,
    /// and nothing changes; earlier or louder is free; the challenge unlocks it for 5 minutes.
    @Test func weakeningTheNextRingNeedsItsChallenge() throws {
        let clock = try Clock(now: Self.night)
        #expect(clock.request(.alarmAdd(spec: try spec("6:45", label: "work", commit: 8 * 3600))).ok)
        var later = AlarmSpec()
        later.time = try LocalTime.parse("7:30")
        var quieter = AlarmSpec()
        quieter.volume = 20
        var moreSnoozes = AlarmSpec()
        moreSnoozes.maxSnoozes = 9
        var uncommitted = AlarmSpec()
        uncommitted.commitSeconds = 0
        let weakening: [Command] = [
            .pause(until: nil), .alarmSetEnabled(id: 1, enabled: false), .alarmRemove(id: 1),
            .alarmEdit(id: 1, spec: later), .alarmEdit(id: 1, spec: quieter), .alarmEdit(id: 1, spec: moreSnoozes),
            .overrideAdd(alarmID: nil, date: "2026-11-24", change: .off),
            .ruleAdd(alarmID: nil, days: try DaySet.parse("tue"), change: .at(try LocalTime.parse("9:00"))),
            .alarmEdit(id: 1, spec: uncommitted),
        ]
        for command in weakening {
            let refused = clock.request(command)
            #expect(!refused.ok, "\(command.name)")
            let message = refused.error?.message ?? ""
            #expect(
                message.contains(
                    "alarm #1 work rings Tue 2026-11-24 at 06:45 and is committed since 22:45 (--commit 8h 0m)"),
                "\(command.name): \(message)")
            #expect(message.contains("'reveille unlock 1'"), "\(message)")
        }
        let status = try #require(clock.request(.status).status)
        #expect(status.master == .on && status.nextRing?.time == "06:45")
        #expect(clock.request(.overrideList).overrides?.isEmpty == true)
        // Earlier, louder: free.
        var stronger = AlarmSpec()
        stronger.time = try LocalTime.parse("6:30")
        stronger.volume = 100
        #expect(clock.request(.alarmEdit(id: 1, spec: stronger)).ok)
        // A wrong answer: a new problem; the right one unlocks it for 5 minutes.
        let problem = try #require(clock.request(.unlock(alarmID: 1, answer: nil)).unlock?.problem)
        #expect(clock.request(.unlock(alarmID: 1, answer: solve(problem) + 1)).unlock?.unlocked != true)
        let right = try #require(clock.request(.unlock(alarmID: 1, answer: nil)).unlock?.problem)
        let unlocked = clock.request(.unlock(alarmID: 1, answer: solve(right)))
        #expect(unlocked.unlock?.unlocked == true)
        #expect(unlocked.message?.contains("alarm #1 is unlocked until 23:0") == true, "\(unlocked)")
        #expect(clock.request(.alarmEdit(id: 1, spec: quieter)).ok)
        #expect(clock.log.text.contains("alarm #1 work unlocked by math"))
        // Five minutes on it is locked again; unlocked, skipping the next ring takes it to Wednesday.
        clock.wall.advance(301)
        clock.daemon.controller.tick()
        let next = try #require(clock.request(.status).status?.nextRing)
        let skip = SkipCommand.command(skipping: next)
        #expect(!clock.request(skip).ok)
        try unlock(clock, 1)
        #expect(clock.request(skip).ok)
        #expect(
            SkipCommand.skipped(next)
                == "skipped alarm #1 work on Tue 2026-11-24 at 06:30; it rings as usual after that")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-25")
    }

    /// Outside the commitment's window, the same changes are free.
    @Test func outsideTheWindowChangesAreFree() throws {
        let clock = try Clock(now: Self.night)
        #expect(clock.request(.alarmAdd(spec: try spec("6:45", commit: 4 * 3600))).ok)
        #expect(clock.request(.pause(until: nil)).ok)
        #expect(clock.request(.resume).ok)
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).ok)
    }

    /// `dismiss --next`: too early says from when; within the hour before, a committed ring needs
    /// its challenge; dismissed, it does not ring, and history says how.
    @Test func theNextRingIsDismissedEarly() throws {
        let clock = try Clock(now: Self.night + 7 * 3600 + 15 * 60)  // Tuesday 06:15
        #expect(clock.request(.alarmAdd(spec: try spec("7:30", label: "work"))).ok)
        #expect(
            clock.request(.dismissNext).error?.message
                == "alarm #1 work rings at 07:30; it can be dismissed early from 06:30 (60 min before)")
        var earlier = AlarmSpec()
        earlier.time = try LocalTime.parse("6:45")
        #expect(clock.request(.alarmEdit(id: 1, spec: earlier)).ok)
        #expect(clock.request(.status).status?.earlyDismissal == true)
        try unlock(clock, 1)
        let done = clock.request(.dismissNext)
        #expect(done.message == "dismissed alarm #1 work due at 06:45 early: it will not ring. Good morning.")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-25")
        clock.passToWake()
        #expect(clock.session == nil, "the 06:45 ring does not come")
        let entry = try #require(clock.history.first)
        #expect(entry.scheduled == "2026-11-24 06:45")
        #expect(HistoryCommand.outcome(entry).hasPrefix("dismissed early by math at 06:15:"), "\(entry)")
    }

    /// `reminder edit` changes only what is given; follow-ups and the `--unless` command go when
    /// asked; disabled, it has no next chime.
    @Test func aReminderEditChangesOnlyWhatIsGiven() throws {
        let clock = try Clock(now: instant("2026-11-23 12:00:00"))
        var add = ReminderSpec()
        add.text = "training"
        add.days = try DaySet.parse("tue,thu")
        add.time = try LocalTime.parse("17:30")
        add.followUps = [FollowUp(afterSeconds: 7200, text: "how did it go?")]
        add.unless = "true"
        #expect(clock.request(.reminderAdd(spec: add)).ok)
        var time = ReminderSpec()
        time.time = try LocalTime.parse("18:00")
        let changed = clock.request(.reminderEdit(id: 1, spec: time))
        #expect(
            changed.message?.contains(
                "changed reminder #1 training: 18:00 tue,thu, then 2 h later \"how did it go?\", unless true") == true,
            "\(changed)")
        var strip = ReminderSpec()
        strip.followUps = []
        strip.unless = ""
        #expect(
            clock.request(.reminderEdit(id: 1, spec: strip)).message?.contains(
                "changed reminder #1 training: 18:00 tue,thu; next chime 2026-11-24 18:00") == true)
        var off = ReminderSpec()
        off.enabled = false
        #expect(clock.request(.reminderEdit(id: 1, spec: off)).message?.contains("(disabled)") == true)
        let reminder = try #require(clock.request(.reminderList).reminders?.first)
        #expect(reminder.followUps.isEmpty && reminder.unless == nil && !reminder.enabled && reminder.next == nil)
        #expect(clock.request(.reminderRemove(id: 1)).message?.contains("removed reminder #1 training") == true)
    }

    /// A plain math alarm of two problems says "1 more" and nothing about a tag reader (it takes
    /// no tag); a tag alarm whose reader is gone says math stands in, in the reply and the log.
    @Test func moreProblemsNameTheReaderOnlyWhenMathStandsInForATag() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        var alarm = try spec("7:00", label: "exam")
        alarm.mathProblems = 2
        #expect(clock.request(.alarmAdd(spec: alarm)).ok)
        clock.passToWake()
        let problem = try #require(clock.request(.problem).payloadProblem)
        let reply = clock.request(.answer(value: solve(problem)))
        let message = try #require(reply.message)
        #expect(message.hasPrefix("right; 1 more to stop it: "), "\(message)")
        #expect(!message.contains("reader") && !message.contains("tag"), "\(message)")
        #expect(reply.session?.fellBackToMath == false)
        #expect(clock.log.text.contains("exam: right answer; 1 more to stop it"), "\(clock.log.text)")
        #expect(!clock.log.text.contains("math stands in"))
        clock.dismissByMath()
        #expect(clock.session == nil)

        // The same words with a tag alarm and no reader: the reason is said, from the same flag.
        clock.reader.health = .notConfigured
        try clock.restart()
        clock.add("7:10", label: "tagged", challenge: .nfc)
        clock.passToWake()
        let standIn = try #require(clock.request(.problem).payloadProblem)
        let fallback = clock.request(.answer(value: solve(standIn)))
        #expect(fallback.session?.fellBackToMath == true)
        #expect(fallback.message?.contains("more to stop it (no NFC reader works, so math stands in for the tag): ") == true, "\(fallback.message ?? "")")
        #expect(clock.log.text.contains("more to stop it (math stands in for its tag)"))
    }

    /// `--problems 3`, the setting added through the one declaration: it travels, is kept, is
    /// shown, and the ring stops at the third right answer, a restart between answers keeping
    /// the count.
    @Test func anAlarmAsksAsManyProblemsAsItIsSetTo() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        var alarm = try spec("7:00", label: "exam")
        alarm.mathProblems = 3
        #expect(clock.request(.alarmAdd(spec: alarm)).ok)
        let info = try #require(clock.request(.alarmList).alarms?.first)
        #expect(info.mathProblems == 3)
        #expect(
            AlarmCommand.Show.render(info).contains("math (medium, 3 problems)"), "\(AlarmCommand.Show.render(info))")
        var fewer = AlarmSpec()
        fewer.mathProblems = 0
        #expect(clock.request(.alarmEdit(id: 1, spec: fewer)).error?.message == "problems 0: must be 1-10")
        clock.passToWake()
        let status = try #require(clock.request(.status).status)
        #expect(StatusCommand.render(status).contains("to stop it: answer 3 math problems with 'reveille dismiss'\n"))
        clock.dismissByMath()
        #expect(clock.session?.state == .ringing && clock.session?.problemsLeft == 2)
        try clock.crash()
        #expect(clock.session?.problemsLeft == 2, "kept across a crash")
        clock.dismissByMath()
        clock.dismissByMath()
        #expect(clock.session == nil)
        #expect(clock.history.first?.dismissedBy == .math)
    }
}
