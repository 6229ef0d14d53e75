import FoundationEssentials
import ReveilleCore

/// How a ring session is kept on disk: a record of its own, with a version, so that renaming a
/// field of the core's `RingSession` never stops a session from resuming after an upgrade. A new
/// shape gets a new version and a migration; `decode` refuses versions it does not know.
struct SessionDetail: Codable {
    static let currentVersion = 2

    struct Settings: Codable {
        var alarmID: Int
        var label: String
        var sound: String?
        var volume: Int
        var fadeInSeconds: Int
        var challenge: String
        var mathDifficulty: String
        var allowedTags: [String]
        var maxSnoozes: Int
        var snoozeMinutes: Int
        var isOneShot: Bool
        /// Added within version 2 (absent from older rows: nil, none).
        var wakeCheckSeconds: Int?
        var escalateAfterSeconds: Int?
        /// Added within version 2: the later snoozes' minutes (absent: all as the first).
        var laterSnoozeMinutes: [Int]?
        /// Added within version 2: every setting (`Alarm.settings`) as the session rings it, so
        /// that a setting added later needs nothing here (absent from older rows: the fields above).
        var values: SettingValues?
    }

    struct Check: Codable {
        var asksAt: Int
        var deadline: Int
        var outcome: String
        var endedAt: Int?
        var answeredBy: String?
    }

    struct Problem: Codable {
        var text: String
        var answer: Int
    }

    /// nil in version 1's rows, which had none.
    var version: Int?
    var settings: Settings
    var scheduledAt: Int
    var startedAt: Int
    var state: String
    var snoozeCount: Int
    var snoozedUntil: Int?
    var ringingSince: Int
    var challenge: String
    var fellBackToMath: Bool
    var problem: Problem?
    var wrongAnswers: Int
    var attenuatedUntil: Int?
    var endedAt: Int?
    var dismissedBy: String?
    var maxRingSeconds: Int
    var attenuationSeconds: Int
    /// Added within version 2 (absent from older rows: nil).
    var dismissedTag: String?
    var joined: [Int]?
    var test: Bool?
    var escalated: Bool?
    var wakeCheck: Check?
    /// Right answers still needed, when more than one (math standing in for a tag).
    var problemsLeft: Int?
    /// When the reader stopped working, for a session whose math stands in for a tag.
    var readerLostAt: Int?
    var readerState: String?
    /// It rang because an earlier session's wake-up check went unanswered (absent: it did not).
    var afterWakeCheck: Bool?

    init(_ session: RingSession) {
        let s = session.settings
        version = SessionDetail.currentVersion
        settings = Settings(
            alarmID: s.alarmID, label: s.label, sound: s.sound, volume: s.volume, fadeInSeconds: s.fadeInSeconds,
            challenge: s.challenge.rawValue, mathDifficulty: s.mathDifficulty.rawValue, allowedTags: s.allowedTags,
            maxSnoozes: s.maxSnoozes, snoozeMinutes: s.snoozeMinutes, isOneShot: s.isOneShot,
            wakeCheckSeconds: s.wakeCheckSeconds == 0 ? nil : s.wakeCheckSeconds,
            escalateAfterSeconds: s.escalateAfterSeconds == 0 ? nil : s.escalateAfterSeconds,
            laterSnoozeMinutes: s.laterSnoozeMinutes.isEmpty ? nil : s.laterSnoozeMinutes,
            values: SettingValues(s.alarm.settingValues))
        scheduledAt = session.scheduledAt
        startedAt = session.startedAt
        state = session.state.rawValue
        snoozeCount = session.snoozeCount
        snoozedUntil = session.snoozedUntil
        ringingSince = session.ringingSince
        challenge = session.challenge.rawValue
        fellBackToMath = session.fellBackToMath
        problem = session.problem.map { Problem(text: $0.text, answer: $0.answer) }
        wrongAnswers = session.wrongAnswers
        attenuatedUntil = session.attenuatedUntil
        endedAt = session.endedAt
        dismissedBy = session.dismissedBy?.rawValue
        maxRingSeconds = session.maxRingSeconds
        attenuationSeconds = session.attenuationSeconds
        dismissedTag = session.dismissedTag
        joined = session.joined.isEmpty ? nil : session.joined
        test = session.isTest ? true : nil
        escalated = session.escalated ? true : nil
        problemsLeft = session.problemsLeft == 1 ? nil : session.problemsLeft
        readerLostAt = session.readerLostAt
        readerState = session.readerState
        afterWakeCheck = session.afterWakeCheck ? true : nil
        wakeCheck = session.wakeCheck.map {
            Check(
                asksAt: $0.asksAt, deadline: $0.deadline, outcome: $0.outcome.rawValue, endedAt: $0.endedAt,
                answeredBy: $0.answeredBy)
        }
    }

    /// Version 1 wrote the core type's own Codable JSON: these same fields without `version` (and
    /// an `id`, ignored). Read once, by the migration to version 2.
    init(legacy text: String) throws {
        self = try JSONDecoder().decode(SessionDetail.self, from: Data(text.utf8))
        version = SessionDetail.currentVersion
    }

    static func isVersioned(_ text: String) -> Bool {
        struct Probe: Decodable { var version: Int? }
        return (try? JSONDecoder().decode(Probe.self, from: Data(text.utf8)))?.version != nil
    }

    static func decode(_ text: String) throws -> SessionDetail {
        let detail = try JSONDecoder().decode(SessionDetail.self, from: Data(text.utf8))
        guard let version = detail.version else { throw StoreError.corrupt("ring session record without a version") }
        guard version == currentVersion else {
            throw StoreError(
                description:
                    "a ring session was stored by a newer reveilled (record version \(version)); install that version again"
            )
        }
        return detail
    }

    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func session(id: Int) throws -> RingSession {
        func value<T: RawRepresentable<String>>(_ text: String, _ name: String) throws -> T {
            guard let value = T(rawValue: text) else { throw StoreError.corrupt("session \(name) \"\(text)\"") }
            return value
        }
        let s = settings
        let ringSettings = RingSettings(
            alarmID: s.alarmID, label: s.label, sound: s.sound, volume: s.volume, fadeInSeconds: s.fadeInSeconds,
            challenge: try value(s.challenge, "challenge"), mathDifficulty: try value(s.mathDifficulty, "difficulty"),
            allowedTags: s.allowedTags, maxSnoozes: s.maxSnoozes, snoozeMinutes: s.snoozeMinutes,
            isOneShot: s.isOneShot, wakeCheckSeconds: s.wakeCheckSeconds ?? 0,
            escalateAfterSeconds: s.escalateAfterSeconds ?? 0, laterSnoozeMinutes: s.laterSnoozeMinutes ?? []
        ).with(s.values?.values ?? [:])
        let check = try wakeCheck.map {
            WakeCheck(
                asksAt: $0.asksAt, deadline: $0.deadline, outcome: try value($0.outcome, "wake-up check"),
                endedAt: $0.endedAt, answeredBy: $0.answeredBy)
        }
        return RingSession(
            restoring: id, settings: ringSettings, scheduledAt: scheduledAt, startedAt: startedAt,
            state: try value(state, "state"), snoozeCount: snoozeCount, snoozedUntil: snoozedUntil,
            ringingSince: ringingSince, challenge: try value(challenge, "challenge"), fellBackToMath: fellBackToMath,
            problem: problem.map { MathProblem(text: $0.text, answer: $0.answer) }, wrongAnswers: wrongAnswers,
            attenuatedUntil: attenuatedUntil, endedAt: endedAt,
            dismissedBy: try dismissedBy.map { try value($0, "dismissal") }, maxRingSeconds: maxRingSeconds,
            attenuationSeconds: attenuationSeconds, dismissedTag: dismissedTag, joined: joined ?? [],
            isTest: test ?? false, escalated: escalated ?? false, wakeCheck: check, problemsLeft: problemsLeft ?? 1,
            readerLostAt: readerLostAt, readerState: readerState, afterWakeCheck: afterWakeCheck ?? false)
    }
}
