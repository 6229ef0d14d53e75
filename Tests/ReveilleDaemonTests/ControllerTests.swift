import Foundation
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Testing
import Synchronization

@testable import ReveilleDaemon

/// A wall clock tests move by hand.
final class ManualClocks: Clocks {
    private let seconds: Mutex<(wall: Double, elapsed: Double)>
    private let synchronized = Mutex(false)

    init(_ start: Double) { seconds = Mutex((start, 1000)) }

    func now() -> Date { Date(timeIntervalSince1970: seconds.withLock { $0.wall }) }

    /// Time that passed (the machine's monotonic reading): moved by `advance`, not by `step`.
    func elapsed() -> Double { seconds.withLock { $0.elapsed } }

    /// Time passes: the wall clock and the elapsed time move together.
    func advance(_ by: Double) {
        seconds.withLock {
            $0.wall += by
            $0.elapsed += max(0, by)
        }
    }

    /// The wall clock is set (network time, `date -s`): only it moves.
    func step(_ by: Double) { seconds.withLock { $0.wall += by } }

    /// Whether network time says the clock is right (false until a test says so).
    var isSynchronized: Bool {
        get { synchronized.withLock { $0 } }
        set { synchronized.withLock { $0 = newValue } }
    }
}

/// The daemon's edge in-process: the real `Controller` and a real (in-memory) SQLite store, with
/// in-memory audio and reader doubles and a manual clock. It carries out what the clock machine
/// decides; these tests check that it does exactly that, and nothing of its own.
@Suite struct ControllerTests {
    /// 2026-11-23 06:00 in Berlin.
    static let six = Double(instant("2026-11-23 06:00:00"))

    final class Rig {
        let clock = ManualClocks(ControllerTests.six)
        let audio = MemoryAudioOutput()
        let reader = MemoryTagReader()
        let store: Store
        let daemon: InProcessDaemon
        var controller: Controller { daemon.controller }
        var tags: TagRequests { daemon.requests.handlers.tags }
        /// What the controller asked the wake timer for, in order.
        var wakes: [Int] { daemon.outlets.wakes }
        var published: [WatchEvent] { daemon.outlets.published }

        init(store: Store? = nil) throws {
            self.store = try store ?? Store()
            daemon = try InProcessDaemon(
                store: self.store, clock: clock, zone: Zone(builtIn: "Europe/Berlin")!,
                ring: RingEnvironment(audio: audio, reader: reader, hooksDirectory: "/nonexistent/hooks.d"))
            controller.start()
        }

        func request(_ command: Command) -> Response {
            daemon.request(command) ?? .failure(.internal, "parked")
        }

        /// Moves the clock and lets the timer fire, as the loop would.
        func pass(_ seconds: Double) {
            clock.advance(seconds)
            controller.tick()
        }
    }

    func nfcAlarm(in seconds: Int) -> AlarmSpec {
        var spec = AlarmSpec()
        spec.inSeconds = seconds
        spec.label = "up"
        spec.challenge = .nfc
        return spec
    }

    @Test func anAddedAlarmArmsTheTimerAndRingsWhenItFires() throws {
        let rig = try Rig()
        var spec = AlarmSpec()
        spec.inSeconds = 60
        #expect(rig.request(.alarmAdd(spec: spec)).ok)
        #expect(rig.wakes.last == Int(Self.six) + 60)
        rig.pass(60)
        #expect(rig.audio.isPlaying)
        #expect(rig.reader.pollingReasons == ["ring"])
        let status = try #require(rig.request(.status).status)
        #expect(status.session?.state == .ringing && status.session?.id == 1)
        #expect(try rig.store.activeSession()?.id == 1)
        #expect(rig.published.contains { if case .session(let s) = $0 { s.state == .ringing } else { false } })
    }

    /// reveille.toml's `[audio] volume` and `fade_in_seconds`, through the options `Daemon.run`
    /// builds the ring sessions' environment from, are what a new alarm gets.
    @Test func theConfiguredVolumeAndFadeInAreTheDefaultsOfNewAlarms() throws {
        let settings = try Settings.parse(
            TOMLDocument(path: "reveille.toml", text: "[audio]\nvolume = 55\nfade_in_seconds = 12\n"))
        let options = DaemonOptions(paths: Paths(root: "/nonexistent"), settings: settings)
        let daemon = try InProcessDaemon(
            store: Store(), clock: ManualClocks(Self.six), zone: #require(Zone(builtIn: "Europe/Berlin")),
            ring: options.ringEnvironment(audio: MemoryAudioOutput(), reader: MemoryTagReader(), voice: MemoryVoice()))
        daemon.controller.start()
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("07:00")
        #expect(daemon.request(.alarmAdd(spec: spec))?.ok == true)
        let alarm = try #require(daemon.request(.alarmList)?.alarms?.first)
        #expect(alarm.volume == 55 && alarm.fadeInSeconds == 12)
        spec.volume = 80
        spec.fadeInSeconds = 0
        #expect(daemon.request(.alarmAdd(spec: spec))?.ok == true)
        #expect(daemon.request(.alarmList)?.alarms?.last.map { [$0.volume, $0.fadeInSeconds] } == [80, 0])
    }

    @Test func aSnoozedAlarmIsDismissedByATapAndTheReaderThenIdles() throws {
        let rig = try Rig()
        #expect(rig.request(.tagAdd(label: "bathroom", uid: "04A1B2C3D4E5F6", timeoutSeconds: 10)).ok)
        #expect(rig.request(.alarmAdd(spec: nfcAlarm(in: 5))).ok)
        rig.pass(5)
        #expect(rig.request(.snooze).ok)
        #expect(!rig.audio.isPlaying)
        #expect(rig.reader.pollingReasons == ["ring"], "the reader keeps polling through a snooze")
        rig.tags.tagPlaced([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], fresh: true)
        #expect(rig.request(.status).status?.session == nil)
        #expect(rig.reader.pollingReasons.isEmpty)
        let history = try #require(rig.request(.history(days: 1)).history)
        #expect(history.map(\.dismissedBy) == [.tag])
        #expect(history.first?.state == .dismissed && history.first?.snoozes == 1)
        // Nothing rings when the snooze would have ended.
        rig.pass(9 * 60 + 1)
        #expect(rig.request(.status).status?.session == nil)
        #expect(!rig.audio.isPlaying)
    }

    /// A household member's `tag test` must not swallow the sleeper's tap: refused while an alarm
    /// rings; a wait begun before the ring ends refused at the first tap, which dismisses.
    @Test func aTagWaitNeverTakesTheTapThatDismissesAnAlarm() throws {
        let rig = try Rig()
        #expect(rig.request(.tagAdd(label: "bathroom", uid: "04A1B2C3D4E5F6", timeoutSeconds: 10)).ok)
        #expect(rig.request(.alarmAdd(spec: nfcAlarm(in: 5))).ok)
        // Parked before the ring.
        #expect(rig.daemon.request(.tagTest(timeoutSeconds: 60), role: .user, connection: 7) == nil)
        rig.pass(5)
        #expect(rig.request(.status).status?.session?.state == .ringing)
        // A second wait during the ring is refused at once.
        let refused = rig.daemon.request(.tagTest(timeoutSeconds: 60), role: .user, connection: 8)
        #expect(refused?.error?.code == .busy)
        #expect(refused?.error?.message.contains("a tap now is for it") == true)
        // The tap dismisses; the parked wait is answered refused, not with the tag.
        rig.tags.tagPlaced([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], fresh: true)
        #expect(rig.request(.status).status?.session == nil)
        let delivered = rig.daemon.outlets.answers
        #expect(delivered.count == 1 && delivered.first?.0 == 7)
        #expect(delivered.first?.1.error?.code == .busy)
        #expect(rig.reader.pollingReasons.isEmpty)
    }

    /// A tag wait runs out on the daemon's one monotonic clock: time passing ends it, a step of
    /// the wall clock (network time arriving an hour later) does not.
    @Test func aTagWaitRunsOutWithTimePassingNotWithAClockStep() throws {
        let rig = try Rig()
        #expect(rig.daemon.request(.tagTest(timeoutSeconds: 60), role: .user, connection: 7) == nil)
        rig.clock.step(3600)
        rig.daemon.requests.expire(now: rig.clock.elapsed())
        #expect(rig.daemon.outlets.answers.isEmpty, "a clock step is not a minute waited")
        rig.clock.advance(59)
        rig.daemon.requests.expire(now: rig.clock.elapsed())
        #expect(rig.daemon.outlets.answers.isEmpty)
        rig.clock.advance(1)
        rig.daemon.requests.expire(now: rig.clock.elapsed())
        let answer = try #require(rig.daemon.outlets.answers.first)
        #expect(answer.0 == 7)
        #expect(answer.1.error?.message.hasPrefix("no tag was placed on the reader within 60 s") == true)
        #expect(rig.reader.pollingReasons.isEmpty, "the reader stops looking")
    }

    @Test func aTagLyingThereAtRingStartDoesNothingUntilLiftedAndTapped() throws {
        let rig = try Rig()
        #expect(rig.request(.tagAdd(label: "bathroom", uid: "04A1B2C3D4E5F6", timeoutSeconds: 10)).ok)
        #expect(rig.request(.alarmAdd(spec: nfcAlarm(in: 5))).ok)
        rig.pass(5)
        let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
        rig.tags.tagPlaced(uid, fresh: false)
        #expect(rig.audio.isPlaying)
        #expect(rig.request(.status).status?.session?.tagOnReader == true)
        #expect(rig.published.contains(.tagOnReader(true)))
        rig.controller.tagLifted()
        rig.tags.tagPlaced(uid, fresh: true)
        #expect(!rig.audio.isPlaying)
    }

    @Test func aRestartRingsARingingSessionAgainWithItsSnoozeCount() throws {
        let store = try Store()
        do {
            let rig = try Rig(store: store)
            #expect(rig.request(.alarmAdd(spec: nfcAlarm(in: 5))).ok)
            rig.pass(5)
            #expect(rig.request(.snooze).ok)
            rig.pass(9 * 60)
            #expect(rig.audio.isPlaying)
        }
        // The daemon was killed mid-ring: a new one on the same state.
        let again = try Rig(store: store)
        #expect(again.audio.calls.first.map { if case .play = $0 { true } else { false } } == true)
        let session = try #require(again.request(.status).status?.session)
        #expect(session.state == .ringing && session.snoozeCount == 1)
    }

    @Test func theEdgeAnswersRefusalsAndBadInputWithoutTouchingTheDevices() throws {
        let rig = try Rig()
        let refused = rig.request(.snooze)
        #expect(refused.error?.code == .refused && refused.error?.message == "nothing is ringing")
        #expect(rig.request(.next(days: 0)).error?.code == .invalid)
        #expect(rig.audio.calls.isEmpty)
    }
}
