import Foundation
import Logging
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import ReveilleStore
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// The household's attacks on a tag-only alarm, through the daemon as `Daemon.run` builds it, on
/// virtual time with an in-memory reader: `tag rm`, `alarm test`, an unplugged reader, the
/// commitment on every field and a one-shot across a year's clock step.
@Suite struct TagOnlyInProcessTests {
    typealias Clock = InProcessRingTests.Clock

    func register(_ clock: Clock, _ label: String, _ uid: String) {
        #expect(clock.request(.tagAdd(label: label, uid: uid, timeoutSeconds: 30)).ok, "tag add \(label)")
    }

    func tap(_ clock: Clock, _ uid: String) {
        clock.daemon.requests.handlers.tags.tagPlaced(UID.parse(uid)!, fresh: true)
        clock.daemon.controller.tagLifted()
    }

    func tagOnly(_ clock: Clock, at time: String, tags: [String], commit: Int? = nil) {
        var spec = AlarmSpec()
        spec.time = try? LocalTime.parse(time)
        spec.days = try? DaySet.parse("daily")
        spec.label = "bath"
        spec.challenge = .nfc
        spec.tags = tags
        spec.commitSeconds = commit
        let added = clock.request(.alarmAdd(spec: spec))
        #expect(added.ok, "\(added.error?.message ?? "")")
    }

    /// Two tags; the alarm takes only A; A is removed: the CLI says it now takes any registered
    /// tag, and at the ring B stops it (the machine had kept A before).
    @Test func afterTagRmTheRemainingTagStopsTheAlarm() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"))
        register(clock, "A", "04A1B2C3D4E5F6")
        register(clock, "B", "04B1B2C3D4E5F6")
        tagOnly(clock, at: "06:30", tags: ["A"])
        let removed = clock.request(.tagRemove(label: "A"))
        #expect(removed.message == "removed tag \"A\"; alarm #1 bath now takes any registered tag")
        clock.passToWake()
        #expect(clock.session?.state == .ringing && clock.session?.challenge == .nfc)
        tap(clock, "04B1B2C3D4E5F6")
        #expect(clock.session == nil, "\(clock.log.text)")
        #expect(clock.history.first?.dismissedTag == "B")
    }

    /// While it rings, the tag that stops it cannot be removed.
    @Test func aTagThatStopsTheRingingAlarmCannotBeRemovedMeanwhile() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"))
        register(clock, "A", "04A1B2C3D4E5F6")
        tagOnly(clock, at: "06:01", tags: ["A"])
        clock.passToWake()
        let refused = clock.request(.tagRemove(label: "A"))
        #expect(
            refused.error?.message
                == "alarm #1 bath is ringing and tag \"A\" stops it: remove the tag once it is dismissed")
        #expect(clock.request(.tagList).tags?.count == 1)
    }

    /// Within a commitment, a tag-only alarm's sound, fade-in, tags and its tag's removal are
    /// refused until its tag is tapped; so are a holiday brought by a calendar (by holding the ring).
    @Test func commitmentRefusesSoundFadeInTagsAndTagRemoval() throws {
        let clock = try Clock(now: instant("2026-11-23 22:00:00"))
        register(clock, "bath", "04A1B2C3D4E5F6")
        register(clock, "bed", "04B1B2C3D4E5F6")
        tagOnly(clock, at: "06:45", tags: ["bath"], commit: 10 * 3600)
        var changes: [Command] = []
        for edit in [
            { (spec: inout AlarmSpec) in spec.sound = "/tmp/silence.wav" }, { $0.fadeInSeconds = 3600 },
            { $0.tags = ["bed"] }, { $0.tags = ["bath", "bed"] },
        ] as [(inout AlarmSpec) -> Void] {
            var spec = AlarmSpec()
            edit(&spec)
            changes.append(.alarmEdit(id: 1, spec: spec))
        }
        changes.append(.tagRemove(label: "bath"))
        for change in changes {
            let refused = clock.request(change)
            #expect(refused.error?.code == .challengeFirst, "\(change.name): \(refused.message ?? "")")
        }
        #expect(clock.request(.tagList).tags?.map(\.label) == ["bath", "bed"])
        // Unlocked by its tag, the same change goes through.
        _ = clock.request(.unlock(alarmID: 1, answer: nil))
        tap(clock, "04A1B2C3D4E5F6")
        #expect(clock.request(.tagRemove(label: "bed")).ok)
    }

    /// `alarm test` ten seconds before a tag-only, committed alarm: at the ring the test ends and
    /// the alarm rings as itself; the test's math does not stop it; history says both.
    @Test func alarmTestLendsNoMathToTheRealAlarm() throws {
        let clock = try Clock(now: instant("2026-11-23 06:29:50"))
        register(clock, "bath", "04A1B2C3D4E5F6")
        clock.add("12:00", label: "easy")
        tagOnly(clock, at: "06:30", tags: ["bath"], commit: 3600)
        #expect(clock.request(.alarmTest(id: 1)).ok)
        clock.passToWake()
        let session = try #require(clock.session)
        #expect(session.alarmID == 2 && session.test == nil && session.challenge == .nfc)
        let problem = clock.request(.problem)
        #expect(problem.error?.message == "this alarm stops only with a registered tag: scan it on the reader")
        tap(clock, "04A1B2C3D4E5F6")
        #expect(clock.session == nil)
        let history = clock.history
        #expect(history.contains { $0.alarmID == 1 && $0.test == true && $0.state == .autoStopped })
        #expect(history.contains { $0.alarmID == 2 && $0.dismissedTag == "bath" && $0.joined == nil })
    }

    /// The reader unplugged during `unlock`: no math is offered; `dismiss --next` is refused.
    @Test func anUnpluggedReaderOpensNoMathBeforeTheRing() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"))
        register(clock, "bath", "04A1B2C3D4E5F6")
        tagOnly(clock, at: "06:30", tags: ["bath"], commit: 3600)
        let asked = try #require(clock.request(.unlock(alarmID: 1, answer: nil)).unlock)
        #expect(asked.problem == nil && asked.tag)
        clock.reader.health = .absent("unplugged")
        clock.daemon.controller.readerHealthChanged(.absent("unplugged"))
        let again = clock.request(.unlock(alarmID: 1, answer: nil))
        #expect(
            again.error?.message.hasPrefix(
                "alarm #1 bath is stopped only by its tag, and the NFC reader is absent: unplugged") == true)
        #expect(clock.request(.dismissNext).error?.code == .challengeFirst)
        // At the ring (after the tap waited for runs out): three hard problems, and the record says why.
        while clock.session == nil, clock.wall.now().timeIntervalSince1970 < Double(instant("2026-11-23 06:30:00")) {
            clock.passToWake()
        }
        let ringing = try #require(clock.session)
        #expect(ringing.fellBackToMath && ringing.problemsLeft == 3 && ringing.readerLostSecondsBeforeRing == 1800)
        let shown = StatusCommand.render(try #require(clock.request(.status).status))
        #expect(
            shown.contains("(no NFC reader works) (the NFC reader: it stopped working 30m before the ring)"), "\(shown)"
        )
        for _ in 0..<3 { clock.dismissByMath() }
        #expect(clock.session == nil)
        let record = try #require(clock.history.first)
        #expect(record.fellBackToMath == true && record.readerState == "absent: unplugged")
        #expect(record.readerLostSecondsBeforeRing == 1800)
    }

    /// `alarm add --in 150s`, the clock set a year ahead and back 6 s later: it still rings, and
    /// `alarm list` never shows it off before.
    @Test func aOneShotSurvivesAYearAheadAndBack() throws {
        let clock = try Clock(now: instant("2026-11-24 06:00:00"))
        clock.addIn(150, label: "tea")
        clock.step(to: instant("2026-11-24 06:00:00") + 365 * 86_400)
        #expect(clock.request(.alarmList).alarms?.first?.enabled == true)
        clock.step(to: instant("2026-11-24 06:00:06"))
        #expect(clock.request(.alarmList).alarms?.first?.enabled == true)
        clock.passToWake()
        #expect(clock.session?.label == "tea", "\(clock.log.text)")
    }
}
