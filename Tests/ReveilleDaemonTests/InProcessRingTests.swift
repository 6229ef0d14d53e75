import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// Ring sessions through the daemon as `Daemon.run` builds it, in-process, on virtual time: clock
/// jumps, a clock behind the last run, DST nights, a second alarm during a snooze, an NFC alarm
/// with no reader, the longest ring. A real SQLite file (restarts read it back), in-memory sound
/// and reader, a manual clock: what these decide takes no real second to show. The end-to-end
/// suites (RingTests, CLITourTests) keep what needs the real processes and the CLI's exact output.
@Suite struct InProcessRingTests {
    final class Clock {
        let folder: URL
        let wall: ManualClocks
        let audio = MemoryAudioOutput()
        let reader = MemoryTagReader()
        let voice = MemoryVoice()
        let log = RecordedLog()
        let zone: Zone
        let policy: RingPolicy
        private(set) var daemon: InProcessDaemon

        let problemSeed: UInt64?

        init(zone: String = "Europe/Berlin", now: Int, maxRingMinutes: Int = 30, problemSeed: UInt64? = nil) throws {
            self.problemSeed = problemSeed
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("inprocess-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            wall = ManualClocks(Double(now))
            self.zone = try #require(Zone(builtIn: zone))
            policy = RingPolicy(maxRingSeconds: maxRingMinutes * 60)
            daemon = try Clock.boot(folder, wall, audio, reader, voice, self.zone, policy, log, problemSeed)
            daemon.controller.start()
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        private static func boot(
            _ folder: URL, _ wall: ManualClocks, _ audio: MemoryAudioOutput, _ reader: MemoryTagReader,
            _ voice: MemoryVoice, _ zone: Zone, _ policy: RingPolicy, _ log: RecordedLog, _ problemSeed: UInt64? = nil
        ) throws -> InProcessDaemon {
            try InProcessDaemon(
                store: try Store(path: folder.appendingPathComponent("state.sqlite").path), clock: wall, zone: zone,
                ring: RingEnvironment(
                    audio: audio, reader: reader, policy: policy, hooksDirectory: "/nonexistent/hooks.d", voice: voice,
                    problemSeed: problemSeed),
                calendarCache: folder.appendingPathComponent("calendars").path,
                calendarFetchFolder: folder.appendingPathComponent("fetched").path, logger: log.logger)
        }

        /// The daemon stops and starts again (its state read back from the file).
        func restart() throws {
            daemon.controller.shutDown()
            daemon = try Clock.boot(folder, wall, audio, reader, voice, zone, policy, log, problemSeed)
            daemon.controller.start()
        }

        /// `kill -9` and a new start: the old daemon is told nothing.
        func crash() throws {
            daemon = try Clock.boot(folder, wall, audio, reader, voice, zone, policy, log, problemSeed)
            daemon.controller.start()
        }

        @discardableResult
        func request(_ command: Command) -> Response {
            daemon.request(command) ?? .failure(.internal, "parked")
        }

        func add(_ time: String, days: String = "daily", label: String? = nil, challenge: Challenge? = nil) {
            var spec = AlarmSpec()
            spec.time = try? LocalTime.parse(time)
            spec.days = try? DaySet.parse(days)
            spec.label = label
            spec.challenge = challenge
            #expect(request(.alarmAdd(spec: spec)).ok, "alarm add \(time)")
        }

        func addIn(_ seconds: Int, label: String) {
            var spec = AlarmSpec()
            spec.inSeconds = seconds
            spec.label = label
            #expect(request(.alarmAdd(spec: spec)).ok)
        }

        /// The wall clock steps to `instant` (network time, `date -s`) and the wake timer fires.
        func step(to instant: Int) {
            wall.step(Double(instant) - wall.now().timeIntervalSince1970)
            daemon.controller.tick(clockWasSet: true)
        }

        /// Time passes to the instant the machine asked to be woken at, and the timer fires there.
        func passToWake() {
            guard let wake = daemon.outlets.wakes.last else { return }
            wall.advance(max(0, Double(wake) - wall.now().timeIntervalSince1970))
            daemon.controller.tick()
        }

        var session: SessionInfo? { request(.status).status?.session }
        var history: [HistoryEntry] { request(.history(days: 2)).history ?? [] }

        func dismissByMath() {
            let problem = request(.problem).payloadProblem
            #expect(request(.answer(value: solve(problem ?? "0"))).ok)
        }
    }

    /// `--snooze-minutes 9,7,5`: kept in the store and on the wire, each snooze shorter, the last
    /// length for every snooze after.
    @Test func snoozesGrowShorterAsSet() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("7:00")
        spec.days = .daily
        spec.maxSnoozes = 0
        (spec.snoozeMinutes, spec.laterSnoozeMinutes) = try Alarm.parseLengths("9,7,5")
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(clock.request(.alarmList).alarms?.first?.laterSnoozeMinutes == [7, 5])
        clock.passToWake()
        var until: [String] = []
        for _ in 0..<4 {
            #expect(clock.request(.snooze).ok)
            until.append(clock.session?.snoozedUntil ?? "-")
            clock.passToWake()
        }
        #expect(until == ["07:09:00", "07:16:00", "07:21:00", "07:26:00"])
        // A plain length again: every snooze that long.
        var plain = AlarmSpec()
        plain.snoozeMinutes = 9
        #expect(clock.request(.alarmEdit(id: 1, spec: plain)).alarms?.first?.laterSnoozeMinutes == [])
    }

    /// Killed mid-ring, the daemon rings again at once with its snooze count, and says so; a
    /// snoozed session keeps its deadline across a kill too.
    @Test func aKilledDaemonRingsAgainAtOnceWithItsSnoozeCount() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        var spec = AlarmSpec()
        spec.inSeconds = 5
        spec.maxSnoozes = 3
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        clock.passToWake()
        #expect(clock.request(.snooze).ok)
        clock.passToWake()
        #expect(clock.session?.state == .ringing)

        try clock.crash()
        let session = try #require(clock.session)
        #expect(session.state == .ringing && session.snoozeCount == 1)
        #expect(StatusCommand.render(try #require(clock.request(.status).status)).contains("2 of 3 snoozes left"))
        #expect(clock.log.text.contains("was ringing; ringing again"))
        #expect(clock.audio.isPlaying)

        #expect(clock.request(.snooze).ok)
        let snoozed = try #require(clock.session?.snoozedUntil)
        try clock.crash()
        let after = try #require(clock.session)
        #expect(after.state == .snoozed && after.snoozeCount == 2)
        #expect(after.snoozedUntil == snoozed)
        #expect(!clock.audio.isPlaying)
    }

    @Test func aThreeHourJumpRingsOnlyWhatIsWithinGrace() throws {
        // Saturday 05:00 in Berlin; alarms at 05:30, 06:00 and 07:50; the clock jumps to 08:00.
        let clock = try Clock(now: instant("2026-11-21 05:00:00"))
        for time in ["5:30", "6:00", "7:50"] { clock.add(time) }
        clock.step(to: instant("2026-11-21 08:00:00"))
        let session = try #require(clock.session)
        #expect(session.state == .ringing && session.alarmID == 3 && session.scheduledTime == "07:50")
        #expect(clock.history.map(\.state) == [.missed, .missed, .ringing])
        #expect(clock.history.map(\.alarmID) == [1, 2, 3])
        #expect(clock.log.text.contains("the clock jumped by +3h 0m"))
        #expect(clock.audio.isPlaying)
    }

    @Test func aClockBehindTheLastRunRingsNothingUntilTimeSyncThenOnlyWhatIsInGrace() throws {
        // A Raspberry Pi has no real-time clock: after a reboot the time may start in the past.
        let clock = try Clock(now: instant("2026-11-21 05:00:00"))
        clock.add("6:00")
        clock.add("8:55")
        clock.wall.advance(Double(instant("2025-01-01 12:00:00") - instant("2026-11-21 05:00:00")))
        try clock.restart()
        #expect(clock.session == nil)
        #expect(
            clock.log.text.contains("earlier than the last handled instant; nothing rings until it is synchronized"))
        let status = try #require(clock.request(.status).status)
        #expect(StatusCommand.render(status).contains("CLOCK BEHIND: the clock reads before 2026-11-21 05:0"))
        // Network time arrives: 09:00 on the day of the last run.
        clock.step(to: instant("2026-11-21 09:00:00"))
        #expect(clock.session?.scheduledTime == "08:55")
        #expect(clock.history.map(\.scheduled) == ["2026-11-21 06:00", "2026-11-21 08:55"])
        #expect(clock.history.map(\.state) == [.missed, .ringing])
    }

    @Test func springForwardRingsAtTheEndOfTheGap() throws {
        // New York, 2026-03-08: 02:00 EST becomes 03:00 EDT. An alarm at 02:30 rings at 03:00 EDT.
        let clock = try Clock(
            zone: "America/New_York", now: instant("2026-03-08 01:59:57", zone: "America/New_York"))
        clock.add("2:30")
        let next = try #require(clock.request(.next(days: 1)).schedule)
        #expect(next.days.first?.entries.first?.time == "03:00")
        #expect(next.days.first?.entries.first?.note.hasPrefix("02:30 does not exist that day") == true)
        #expect(clock.daemon.outlets.wakes.last == instant("2026-03-08 03:00:00", zone: "America/New_York"))
        clock.passToWake()
        #expect(clock.session?.state == .ringing && clock.session?.scheduledTime == "03:00")
    }

    @Test func fallBackRingsOnceAtTheFirst0130() throws {
        // New York, 2026-11-01: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST).
        let clock = try Clock(zone: "America/New_York", now: utc("2026-11-01T05:29:58Z"))
        clock.add("1:30")
        clock.passToWake()
        #expect(clock.session?.state == .ringing)
        #expect(clock.wall.now().timeIntervalSince1970 == Double(utc("2026-11-01T05:30:00Z")))
        clock.dismissByMath()
        #expect(clock.session == nil)
        // The second 01:30 comes and goes without a ring.
        #expect(clock.daemon.outlets.wakes.last == utc("2026-11-01T06:30:00Z"))
        clock.passToWake()
        #expect(clock.session == nil && !clock.audio.isPlaying)
        #expect(clock.history.count == 1)
    }

    @Test func aSecondAlarmDueDuringASnoozeWakesThatSessionOnce() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"))
        clock.addIn(1, label: "first")
        clock.passToWake()
        #expect(clock.session?.state == .ringing)
        #expect(clock.request(.snooze).ok)
        clock.addIn(2, label: "second")
        clock.passToWake()
        let session = try #require(clock.session)
        #expect(session.state == .ringing && session.label == "first" && session.snoozeCount == 1)
        let plays = clock.audio.calls.filter { if case .play = $0 { true } else { false } }
        #expect(plays.count == 2, "one sound for the first ring, one for the second: \(plays)")
        #expect(clock.log.text.contains("alarm #2 second is due while #1 first is snoozed; it rings as that session"))
        // The second one-shot has had its ring: it is off.
        #expect(clock.request(.alarmList).alarms?.map(\.enabled) == [false, false])
    }

    @Test func anNFCAlarmWithNoReaderOffersMathAndSaysSo() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"))
        clock.reader.health = .notConfigured
        clock.daemon.controller.readerHealthChanged(.notConfigured)  // as the reader's thread reports it
        clock.add("6:01", label: "wall", challenge: .nfc)
        clock.passToWake()
        let session = try #require(clock.session)
        #expect(session.challenge == .math && session.fellBackToMath)
        let status = try #require(clock.request(.status).status)
        #expect(
            StatusCommand.render(status).contains(
                "to stop it: answer 3 math problems with 'reveille dismiss' (no NFC reader works) (the NFC reader: it stopped working 1m before the ring)\n"
            ))
        #expect(clock.log.text.contains("alarm #1 wall wants an NFC tag but the reader is "))
        #expect(clock.log.text.contains("; offering math instead: 3 hard problems"))
        for _ in 0..<3 { clock.dismissByMath() }
        #expect(clock.session == nil)
    }

    @Test func anUnansweredAlarmStopsAfterTheLongestRing() throws {
        let clock = try Clock(now: instant("2026-11-23 06:00:00"), maxRingMinutes: 1)
        clock.addIn(1, label: "nap")
        clock.passToWake()
        #expect(clock.session?.state == .ringing)
        clock.passToWake()  // the machine's next wake: the end of the longest ring
        #expect(clock.session == nil)
        #expect(!clock.audio.isPlaying)
        #expect(clock.history.map(\.state) == [.autoStopped])
        #expect(clock.log.text.contains("rang 1 min unanswered; stopped (unattended)"))
    }
}

extension Response {
    /// The problem a `dismiss` was given.
    var payloadProblem: String? {
        if case .ring(let reply) = payload { reply.problem } else { nil }
    }
}

/// A clock that was ahead and is put right (docs/guide/recovery.md, "When the clock was wrong"), and a silenced
/// day across a crash after midnight, in-process on virtual time.
@Suite struct InProcessWrongClockTests {
    typealias Clock = InProcessRingTests.Clock
    static let year = 365 * 86_400

    @Test func aClockSetAYearAheadThenBackWhileRunningRingsAgain() throws {
        let clock = try Clock(now: instant("2026-11-24 06:00:00"))
        clock.add("06:30", label: "school")
        clock.step(to: instant("2026-11-24 06:10:00") + Self.year)
        #expect(clock.log.text.contains("the clock jumped by +"))
        // Put right by time sync at 06:40: 06:30 passed while it was wrong, within the grace: it rings.
        clock.step(to: instant("2026-11-24 06:40:00"))
        #expect(clock.session?.state == .ringing, "\(clock.log.text)")
        #expect(clock.log.text.contains("the clock is right again"))
        #expect(clock.request(.status).status?.clockWaiting == nil)
        clock.dismissByMath()
        let next = try #require(clock.request(.status).status?.nextRing)
        #expect(next.weekday == "Wed" && next.time == "06:30", "\(next)")
    }

    @Test func startedOnAClockBehindItWaitsSayingSoUntilNetworkTimeIsThere() throws {
        let clock = try Clock(now: instant("2026-11-24 06:00:00") + Self.year)
        clock.add("06:30")
        clock.wall.advance(Double(-Self.year + 20 * 60))  // 2026-11-24 06:20
        try clock.restart()
        let waiting = try #require(clock.request(.status).status)
        let shown = StatusCommand.render(waiting)
        #expect(shown.contains("CLOCK BEHIND: the clock reads before 2027-11-24 06:00:"), "\(shown)")
        #expect(shown.contains("nothing rings until network time says the clock is right"))
        // Network time arrives: the wait ends at the next look.
        clock.wall.isSynchronized = true
        clock.daemon.controller.tick()
        #expect(clock.request(.status).status?.clockWaiting == nil)
        clock.passToWake()
        #expect(clock.session?.state == .ringing, "\(clock.log.text)")
        #expect(clock.wall.now().timeIntervalSince1970 == Double(instant("2026-11-24 06:30:00")))
    }

    /// A day silenced by an override, then a crash after midnight (a power cut, a watchdog
    /// restart): the catch-up still sees the override, so the silenced occurrence neither rings
    /// nor is missed.
    @Test(arguments: ["2026-11-24 23:56:00", "2026-11-25 00:05:00", "2026-11-25 00:09:30"])
    func aSilencedDayStaysSilentAcrossAKillAfterMidnight(killAt: String) throws {
        let clock = try Clock(now: instant("2026-11-24 22:00:00"))
        clock.add("23:55")
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-24", change: .off)).ok)
        clock.step(to: instant(killAt))
        try clock.crash()
        #expect(clock.session == nil, "the silenced 23:55 rang after a restart at \(killAt)")
        #expect(clock.history.isEmpty, "recorded: \(clock.history)")
        #expect(!clock.log.text.contains("recorded as missed"))
        // The next day rings as usual.
        let next = try #require(clock.request(.status).status?.nextRing)
        #expect(next.weekday == "Wed" && next.time == "23:55", "\(next)")
    }
}

/// One switch for every reminder, apart from the alarms' pause: off, nothing chimes (and `next`
/// says why); alarms ring as set; on, the next chime plays.
@Suite struct ReminderSwitchTests {
    typealias Clock = InProcessRingTests.Clock

    @Test func remindersOffSilenceEveryChimeButNoAlarm() throws {
        let clock = try Clock(now: instant("2026-11-23 15:59:00"))
        var tea = ReminderSpec()
        tea.text = "tea"
        tea.time = LocalTime(hour: 16, minute: 0)
        #expect(clock.request(.reminderAdd(spec: tea)).ok)
        clock.add("16:00", label: "walk")
        let off = clock.request(.remindersSwitch(on: false))
        #expect(off.message == "reminders are off: none chimes until 'reveille reminders on' (alarms are not touched)")
        let status = try #require(clock.request(.status).status)
        #expect(status.remindersOn == false && status.nextReminder == nil)
        #expect(StatusCommand.render(status).contains("reminders: OFF until 'reveille reminders on'\n"))
        let rows = clock.request(.next(days: 1)).schedule?.reminders ?? []
        #expect(rows.map(\.silenced) == ["reminders are off"])
        clock.passToWake()
        #expect(clock.session?.state == .ringing, "the alarm rings as set")
        clock.dismissByMath()
        clock.step(to: instant("2026-11-23 16:05:00"))
        let chimes = clock.daemon.outlets.published.filter { if case .reminder = $0 { true } else { false } }
        #expect(chimes.isEmpty, "no chime while reminders are off")
        // On again: the next day's chime plays at its time.
        #expect(clock.request(.remindersSwitch(on: true)).message == "reminders are on")
        #expect(clock.request(.status).status?.remindersOn == nil)
        clock.step(to: instant("2026-11-24 16:00:01"))
        // The walk rings at 16:00 too: the chime waits for it, and plays once it is dismissed.
        #expect(clock.session?.state == .ringing)
        clock.dismissByMath()
        let played = clock.daemon.outlets.published.compactMap { event -> String? in
            if case .reminder(let chime) = event { chime.text } else { nil }
        }
        #expect(played == ["tea"])
        #expect(clock.voice.said.last == "Reminder: tea.", "its text, spoken after the chime")
        #expect(clock.voice.said.filter { $0.hasPrefix("Reminder") }.count == 1, "not while reminders were off")
    }
}
