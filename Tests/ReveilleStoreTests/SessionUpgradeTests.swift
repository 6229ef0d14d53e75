import Foundation
import Glibc
import ReveilleApps
import ReveilleCore
import Testing

@testable import ReveilleStore

/// Ring sessions are stored as a versioned record of their own (issue 12): an upgrade from a
/// database written before that (the core type's own JSON in `detail`) keeps a snoozed session.
@Suite struct SessionUpgradeTests {
    /// What version 1 wrote for a session of alarm #3, snoozed once until 06:39:10 (as
    /// `JSONEncoder().encode(RingSession)` of that build put it).
    static let legacyDetail = """
        {"id":0,"settings":{"alarmID":3,"label":"work","sound":null,"volume":80,"fadeInSeconds":30,\
        "challenge":"nfc","mathDifficulty":"medium","allowedTags":["bathroom"],"maxSnoozes":3,\
        "snoozeMinutes":9,"isOneShot":false},"scheduledAt":1795411800,"startedAt":1795411801,\
        "state":"snoozed","snoozeCount":1,"snoozedUntil":1795412350,"ringingSince":1795411801,\
        "challenge":"nfc","fellBackToMath":false,"problem":{"text":"12 × 3 + 40","answer":76},\
        "wrongAnswers":2,"maxRingSeconds":1800,"attenuationSeconds":60}
        """

    /// A database file migrated up to `version` and given `rows`, as an older build left it;
    /// removed after `body`.
    func olderDatabase(upTo version: String, _ rows: (SQLiteConnection) throws -> Void, _ body: (String) throws -> Void)
        throws
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-upgrade-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("state.sqlite").path
        do {
            let queue = DatabaseQueue(try SQLiteConnection(path: path))
            try Store.migrations.apply(to: queue, upTo: version)
            try queue.write(rows)
        }
        try body(path)
    }

    @Test func aSnoozedSessionStoredByTheOldShapeResumesAfterTheUpgrade() throws {
        // Today's database: schema v1-v4 and a session row whose detail is the old JSON.
        try olderDatabase(upTo: "v4: app usage and grants") { db in
            try db.execute(
                """
                INSERT INTO ring_session (alarmId, label, scheduledAt, startedAt, state, snoozeCount,
                    wrongAnswers, endedAt, dismissedBy, fellBackToMath, detail)
                VALUES (3, 'work', 1795411800, 1795411801, 'snoozed', 1, 2, NULL, NULL, 0, ?)
                """, SessionUpgradeTests.legacyDetail)
        } _: { path in
            let store = try Store(path: path)
            let session = try #require(try store.activeSession())
            #expect(session.id == 1)
            #expect(session.state == .snoozed)
            #expect(session.snoozeCount == 1 && session.snoozedUntil == 1_795_412_350)
            #expect(session.settings.alarmID == 3 && session.settings.allowedTags == ["bathroom"])
            #expect(session.challenge == .nfc && session.wrongAnswers == 2)
            #expect(session.problem == MathProblem(text: "12 × 3 + 40", answer: 76))
            #expect(try store.lastSessionID() == 1)

            // The row now holds the versioned record.
            let detail = try SQLiteConnection(path: path).text("SELECT detail FROM ring_session WHERE id = 1")
            #expect(detail?.contains("\"version\":2") == true)
        }
    }

    /// A session keeps every setting of its alarm, the ones without a field of their own in the
    /// record too: a setting added later needs no change to the record.
    @Test func aSessionKeepsEverySettingOfItsAlarm() throws {
        var alarm = Alarm(id: 1, time: try LocalTime.parse("06:00"), repeats: .weekly(.daily))
        alarm.leadSeconds = 1200
        alarm.commitSeconds = 8 * 3600
        alarm.laterSnoozeMinutes = [7, 5]
        let session = RingSession.missed(settings: RingSettings(alarm), scheduledAt: 0, now: 0)
        let back = try SessionDetail.decode(try SessionDetail(session).encoded()).session(id: 1)
        #expect(back.settings == session.settings)
        #expect(back.settings.leadSeconds == 1200 && back.settings.commitSeconds == 8 * 3600)
    }

    /// Why a session rings (after an unanswered wake-up check) is kept, so a restart mid-ring says it too.
    @Test func aSessionAfterAnUnansweredCheckIsStillOneAfterARestart() throws {
        let alarm = Alarm(id: 1, time: try LocalTime.parse("06:00"), repeats: .weekly(.daily))
        let session = RingSession(
            restoring: 3, settings: RingSettings(alarm), scheduledAt: 0, startedAt: 0, state: .ringing, snoozeCount: 0,
            snoozedUntil: nil, ringingSince: 0, challenge: .math, fellBackToMath: false, problem: nil, wrongAnswers: 0,
            attenuatedUntil: nil, endedAt: nil, dismissedBy: nil, maxRingSeconds: 3600, attenuationSeconds: 60,
            afterWakeCheck: true)
        let back = try SessionDetail.decode(try SessionDetail(session).encoded()).session(id: 3)
        #expect(back.reason == .wakeCheck)
        let plain = RingSession.missed(settings: RingSettings(alarm), scheduledAt: 0, now: 0)
        #expect(try SessionDetail.decode(try SessionDetail(plain).encoded()).session(id: 1).afterWakeCheck == false)
    }

    @Test func aRecordFromANewerVersionIsRefusedWithAClearMessage() throws {
        var detail = SessionDetail(
            RingSession.missed(
                settings: RingSettings(Alarm(id: 1, time: try LocalTime.parse("06:00"), repeats: .weekly(.daily))),
                scheduledAt: 0, now: 0))
        detail.version = 3
        #expect {
            try SessionDetail.decode(try detail.encoded())
        } throws: { error in
            "\(error)".contains("stored by a newer reveilled (record version 3)")
        }
    }

    /// Issue 13: grants became per user (migration v7); a grant made before is everyone's.
    @Test func aGrantStoredBeforeGrantsWerePerUserIsEveryones() throws {
        try olderDatabase(upTo: "v6: the last good app policy") { db in
            try db.execute("INSERT INTO app_grant (date, app, minutes) VALUES ('2026-11-23', 'game', 25)")
        } _: { path in
            let store = try Store(path: path)
            #expect(
                try store.appGrants(on: try CivilDate.parse("2026-11-23")) == [AppUsageKey(app: "game", user: "*"): 25])
        }
    }

    /// The state was stored through GRDB before it was stored through SQLite's C API: a database
    /// GRDB made (Fixtures/grdb-v11.sql) opens with its alarm, tag and reminder, no migration runs
    /// again, and its schema is exactly the one a new database gets.
    @Test func aDatabaseGRDBMadeOpensAsItWasAndHasTodaysSchema() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/grdb-v11.sql")
        let dump = try String(contentsOf: fixture, encoding: .utf8)
        try olderDatabase(upTo: "v1: alarms, rules, overrides, settings") { _ in
        } _: { scratch in
            let path = scratch + ".grdb"
            defer { unlink(path) }
            try SQLiteConnection(path: path).execute(dump)
            let store = try Store(path: path)
            let state = try store.scheduleState()
            #expect(state.alarms.map(\.label) == ["work"])
            #expect(state.alarms.first?.enabled == true && state.alarms.first?.skipHolidays == true)
            #expect(state.alarms.first?.repeats == .weekly(DaySet(mask: 31)))
            #expect(try store.tags().map(\.uid) == ["04A1B2C3"])
            #expect(state.reminders.map(\.body) == ["blue lid"] && state.reminders.first?.enabled == false)
            #expect(try store.insert(state.alarms[0]).id == 2)

            let schema =
                "SELECT type || ' ' || name || ': ' || ifnull(sql, '') AS line FROM sqlite_master ORDER BY name"
            let fresh = try Store()
            let freshSchema = try fresh.db.read { db in try db.rows(schema).map { try $0.text("line") } }
            let grdbSchema = try store.db.read { db in try db.rows(schema).map { try $0.text("line") } }
            #expect(grdbSchema.count > 20)
            #expect(
                grdbSchema.map { $0.replacingOccurrences(of: "\n  ", with: " ") }
                    == freshSchema.map { $0.replacingOccurrences(of: "\n  ", with: " ") })
            // GRDB's eleven, the ones made since (v12 to v21), and each alarm setting's column
            // check, ran once on it.
            let migrations = try store.db.read { db in try db.int("SELECT count(*) FROM grdb_migrations") }
            #expect(migrations == 21 + Alarm.settings.count)
        }
    }
}
