import Foundation
import ReveilleApps
import ReveilleCore
import Testing

@testable import ReveilleStore

@Suite struct StoreTests {
    func alarm(_ at: String, _ repeats: Repeat) -> Alarm {
        Alarm(id: 0, label: "work", time: try! LocalTime.parse(at), repeats: repeats, tags: ["bathroom"])
    }

    @Test func alarmsRoundTripThroughSQLiteOnDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-store-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("state.sqlite").path

        var weekly = try Store(path: path).insert(alarm("06:45", .weekly(.weekdays)))
        let once = try Store(path: path).insert(alarm("07:30:15", .once(try CivilDate.parse("2028-02-29"))))
        #expect(weekly.id == 1 && once.id == 2)
        weekly.enabled = false
        weekly.volume = 55
        #expect(try Store(path: path).update(weekly))

        // A fresh open (as after a restart) reads back exactly what was written.
        let reopened = try Store(path: path)
        #expect(try reopened.scheduleState().alarms == [weekly, once])
        #expect(try reopened.alarm(id: 2)?.repeats == .once(try CivilDate.parse("2028-02-29")))
        #expect(try reopened.alarm(id: 99) == nil)
    }

    /// A setting declared in `Alarm.settings` brings its own column: a database without it (one
    /// from before the setting) gets it with the setting's default, and its alarms read back whole.
    @Test func aNewSettingGetsItsColumnWithItsDefault() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("setting-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var loud = alarm("06:45", .weekly(.weekdays))
        loud.volume = 95
        _ = try Store(path: path).insert(loud)
        // As a version before `leadSound` left it: no column, no step recorded.
        let old = try SQLiteConnection(path: path)
        try old.execute(#"ALTER TABLE "alarm" DROP COLUMN "leadSound""#)
        try old.execute("DELETE FROM grdb_migrations WHERE identifier = 'setting: leadSound'")
        let store = try Store(path: path)
        let columns = try store.db.read { db in try db.rows(#"PRAGMA table_info("alarm")"#).map { try $0.text("name") }
        }
        #expect(columns.contains("leadSound"))
        let read = try #require(try store.scheduleState().alarms.first)
        #expect(read.leadSound == false && read.volume == 95)
    }

    /// A value this version does not know is refused with the row, never read as a default.
    @Test func anAlarmWithAChallengeThisVersionDoesNotKnowIsRefused() throws {
        let store = try Store()
        _ = try store.insert(alarm("06:45", .weekly(.weekdays)))
        try store.db.write { try $0.execute("UPDATE alarm SET challenge = 'qr' WHERE id = 1") }
        #expect {
            try store.scheduleState()
        } throws: { "\($0)".contains("alarm row 1 has challenge \"qr\"") }
        try store.db.write {
            try $0.execute("UPDATE alarm SET challenge = 'math', mathDifficulty = 'insane' WHERE id = 1")
        }
        #expect {
            try store.scheduleState()
        } throws: { "\($0)".contains("alarm row 1 has mathDifficulty \"insane\"") }
    }

    /// `tag rm`: the tag goes and the alarms that named it lose it, in one transaction.
    @Test func removingATagTakesItFromTheAlarmsThatNamedIt() throws {
        let store = try Store()
        for (label, uid) in [("bath", "04A1B2C3D4E5F6"), ("door", "04A1B2C3D4E5F7")] {
            _ = try store.insert(Tag(label: label, uid: uid, addedAt: 0))
        }
        var both = alarm("06:00", .weekly(.daily))
        both.tags = ["bath", "door"]
        let named = try store.insert(both)
        var only = alarm("07:00", .weekly(.daily))
        only.tags = ["door"]
        _ = try store.insert(only)
        let changed = try #require(try store.deleteTag(label: "bath"))
        #expect(changed.map(\.id) == [named.id] && changed.first?.tags == ["door"])
        #expect(try store.scheduleState().alarms.map(\.tags) == [["door"], ["door"]])
        #expect(try store.tags().map(\.label) == ["door"])
        #expect(try store.deleteTag(label: "bath") == nil)
    }

    @Test func removingAnAlarmRemovesItsRulesAndOverrides() throws {
        let store = try Store()
        let kept = try store.insert(alarm("06:00", .weekly(.daily)))
        let gone = try store.insert(alarm("07:00", .weekly(.daily)))
        _ = try store.insertRule(WeeklyRule(id: 0, alarmID: gone.id, days: .weekends, change: .off)) { _ in }
        _ = try store.insertRule(WeeklyRule(id: 0, alarmID: nil, days: .weekends, change: .off)) { _ in }
        _ = try store.insertOverride(
            DateOverride(id: 0, alarmID: gone.id, date: try CivilDate.parse("2026-12-24"), change: .off)
        ) { _ in }
        #expect(try store.deleteAlarm(id: gone.id))
        #expect(try !store.deleteAlarm(id: gone.id))
        let state = try store.scheduleState()
        #expect(state.alarms.map(\.id) == [kept.id])
        #expect(state.rules.map(\.alarmID) == [nil])
        #expect(state.overrides.isEmpty)
    }

    @Test func aRefusedRuleLeavesNothingBehind() throws {
        let store = try Store()
        let first = try store.insertRule(WeeklyRule(id: 0, alarmID: nil, days: .weekends, change: .off)) { _ in }
        let candidate = WeeklyRule(id: 0, alarmID: nil, days: DaySet([.sunday]), change: .off)
        #expect(throws: InputError.self) {
            _ = try store.insertRule(candidate) { existing in try LayerConflicts.check(candidate, against: existing) }
        }
        #expect(try store.scheduleState().rules == [first])
    }

    @Test func purgesOnlyPastOverrides() throws {
        let store = try Store()
        for day in ["2026-11-19", "2026-11-20", "2026-11-21", "2026-12-24"] {
            _ = try store.insertOverride(
                DateOverride(id: 0, alarmID: nil, date: try CivilDate.parse(day), change: .off)
            ) { _ in }
        }
        #expect(try store.purgeOverrides(before: try CivilDate.parse("2026-11-21")) == 2)
        #expect(try store.scheduleState().overrides.map(\.date.description) == ["2026-11-21", "2026-12-24"])
    }

    @Test func masterSwitchPersists() throws {
        let store = try Store()
        #expect(try store.master() == .on)
        try store.setMaster(.pausedUntil(try CivilDate.parse("2026-12-01")))
        #expect(try store.master() == .pausedUntil(try CivilDate.parse("2026-12-01")))
        try store.setMaster(.off)
        #expect(try store.master() == .off)
        try store.setMaster(.on)
        #expect(try store.master() == .on)
    }

    @Test func theLastGoodAppPolicyIsKeptAndItsTimeMovesOnlyWhenItChanges() throws {
        let store = try Store()
        #expect(try store.goodAppPolicy() == nil)
        try store.saveGoodAppPolicy("[[app]]\nname = \"game\"\n", at: 100)
        try store.saveGoodAppPolicy("[[app]]\nname = \"game\"\n", at: 200)
        #expect(try store.goodAppPolicy()?.text == "[[app]]\nname = \"game\"\n")
        #expect(try store.goodAppPolicy()?.savedAt == 100, "the same text again is not a new policy")
        try store.saveGoodAppPolicy("", at: 300)
        #expect(try store.goodAppPolicy()?.text == "")
        #expect(try store.goodAppPolicy()?.savedAt == 300)
    }

    @Test func thePolicyInForceAndRequestsForMoreTimeAreKept() throws {
        let store = try Store()
        #expect(try store.appPolicyInForce() == nil)
        try store.saveAppPolicyInForce(Store.AppPolicyRecord(text: "a", base: "b", revision: 3), at: 50)
        #expect(try store.appPolicyInForce() == Store.AppPolicyRecord(text: "a", base: "b", revision: 3, savedAt: 50))

        let monday = try CivilDate.parse("2026-11-23")
        let tuesday = try CivilDate.parse("2026-11-24")
        let first = try store.addAppRequest(user: "kid", app: "game", minutes: 30, why: nil, on: monday, at: 10)
        _ = try store.addAppRequest(user: "kid", app: "game", minutes: 15, why: "one more", on: tuesday, at: 20)
        #expect(try store.answerAppRequest(first, state: "approved", by: "root"))
        #expect(try !store.answerAppRequest(first, state: "refused", by: "mum"), "answered once")
        #expect(try store.appRequests(on: monday).map(\.state) == ["approved"])
        #expect(try store.appRequests(on: monday).first?.answeredBy == "root")
        try store.forgetAppRequests(before: tuesday)
        #expect(try store.appRequests(on: monday).isEmpty)
        #expect(try store.appRequests(on: tuesday).map(\.why) == ["one more"])
    }

    @Test func grantsAreKeptPerUserAndForEveryone() throws {
        let store = try Store()
        let day = try CivilDate.parse("2026-11-23")
        #expect(try store.addAppGrant(10, app: "game", user: "kid", on: day) == (10, nil))
        #expect(try store.addAppGrant(5, app: "game", user: "kid", on: day) == (15, nil))
        #expect(try store.addAppGrant(20, app: "game", on: day) == (20, nil))
        #expect(
            try store.appGrants(on: day) == [
                AppUsageKey(app: "game", user: "kid"): 15, AppUsageKey(app: "game", user: "*"): 20,
            ])
        #expect(try store.appGrants(on: day.adding(days: 1)).isEmpty)
        // A grant that opens the app now: the later opening stands, and a plain grant keeps it.
        #expect(try store.appOpenings(on: day).isEmpty)
        #expect(try store.addAppGrant(5, app: "game", user: "kid", on: day, openUntil: 2000) == (20, 2000))
        #expect(try store.addAppGrant(5, app: "game", user: "kid", on: day, openUntil: 1500) == (25, 2000))
        #expect(try store.addAppGrant(5, app: "game", user: "kid", on: day) == (30, 2000))
        #expect(try store.appOpenings(on: day) == [AppUsageKey(app: "game", user: "kid"): 2000])
        #expect(try store.appOpenings(on: day.adding(days: 1)).isEmpty)
    }

    @Test func theHubsGrantsOnlyRaiseAndTheHubFollowedIsKept() throws {
        let store = try Store()
        let day = try CivilDate.parse("2026-11-23")
        #expect(try store.addAppGrant(10, app: "game", user: "kid", on: day) == (10, nil))
        // The hub's 15 in all raise the 10 given here; a repeated or late 12 changes nothing.
        #expect(try store.raiseAppGrant(to: 15, app: "game", user: "kid", on: day) == (15, true))
        #expect(try store.raiseAppGrant(to: 12, app: "game", user: "kid", on: day) == (15, false))
        #expect(try store.raiseAppGrant(to: 30, app: "game", user: nil, on: day) == (30, true))
        #expect(
            try store.appGrants(on: day) == [
                AppUsageKey(app: "game", user: "kid"): 15, AppUsageKey(app: "game", user: "*"): 30,
            ])
        #expect(try store.appPolicyHub() == nil)
        try store.setAppPolicyHub((name: "clock", since: 1_796_000_000))
        let hub = try #require(try store.appPolicyHub())
        #expect(hub.name == "clock" && hub.since == 1_796_000_000)
        try store.setAppPolicyHub(nil)
        #expect(try store.appPolicyHub() == nil)
    }

    @Test func remindersRoundTripAndAChimeIsKeptOnceWithItsFirstOutcome() throws {
        let store = try Store()
        let reminder = try store.insert(
            Reminder(
                id: 0, text: "competition", time: try LocalTime.parse("17:00"),
                repeats: .once(try CivilDate.parse("2026-12-05")), sound: "/sounds/bell.wav",
                followUps: [FollowUp(afterSeconds: 7200, text: "how did it go?")], unless: "test -e /tmp/sent"))
        #expect(reminder.id == 1)
        #expect(try store.scheduleState().reminders == [reminder])
        var changed = reminder
        changed.repeats = .weekly(.weekdays)
        changed.unless = nil
        #expect(try store.update(changed))
        #expect(try store.reminder(id: 1) == changed)
        #expect(try store.update(Reminder(id: 9, text: "x", time: changed.time, repeats: changed.repeats)) == false)

        let chime = Chime(
            key: "reminder:1:0@1000", instant: 1000, text: "competition", sound: nil, unless: nil,
            origin: "reminder #1", day: try CivilDate.parse("2026-12-05"))
        try store.record(chime: chime, outcome: .played, at: 1001)
        try store.record(chime: chime, outcome: .missed, at: 2000)  // a second word on it changes nothing
        let kept = try store.chimes(since: 0)
        #expect(kept.map(\.key) == ["reminder:1:0@1000"])
        #expect(kept.map(\.outcome) == ["played"])
        #expect(try store.deleteReminder(id: 1))
        #expect(try store.reminders().isEmpty)
    }
}

/// The state's care, when it fails (a full disk): tried again in 5 minutes, then 10, 20... and at
/// most every 6 hours, the usual rhythm, to which a success returns (it was tried again in 6 hours).
@Suite struct StateCareRetryTests {
    @Test func aFailedCareIsTriedAgainSoonThenLessOften() {
        #expect(StateFiles.nextCare(afterFailures: 0) == 6 * 3600)
        #expect((1...8).map { StateFiles.nextCare(afterFailures: $0) } == [300, 600, 1200, 2400, 4800, 9600, 19200, 21600])
        #expect(StateFiles.nextCare(afterFailures: 100) == 6 * 3600)
    }
}
