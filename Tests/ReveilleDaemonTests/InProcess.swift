import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Synchronization

@testable import ReveilleDaemon

/// The outlets of an in-process daemon: what the core asked of the loop, recorded.
final class RecordingOutlets: Outlets {
    /// Instants the wake timer was armed at, in order.
    var wakes: [Int] = []
    var published: [WatchEvent] = []
    /// Answers to parked requests: (connection, response).
    var answers: [(Int, Response)] = []
    var calendarFolders: Set<String> = []
    /// Everything the machine decided, in order.
    var decisions: [ClockAction] = []

    func armWake(at instant: Int) { wakes.append(instant) }
    func publish(_ event: WatchEvent) { published.append(event) }
    func answer(_ id: Int, _ response: Response) { answers.append((id, response)) }
    func watchCalendarFolders(_ folders: Set<String>) { calendarFolders.formUnion(folders) }
    let chimeChecked: @Sendable (String, Bool, String) -> Void = { _, _, _ in }
    func decided(_ actions: [ClockAction]) { decisions += actions }
}

/// The daemon's core and request handlers in-process, as `Daemon.run` builds them, over a given
/// store and clock, with in-memory devices and recording outlets.
struct InProcessDaemon {
    let controller: Controller
    let requests: Requests
    let outlets: RecordingOutlets

    init(
        store: Store, clock: any Clocks, zone: Zone, ring: RingEnvironment, calendarCache: String? = nil,
        calendarFetchFolder: String? = nil, logger: Logger = Logger(label: "test")
    ) throws {
        let outlets = RecordingOutlets()
        controller = try Controller(
            store: store, clock: clock, zone: .fixed(zone),
            calendarCache: calendarCache ?? NSTemporaryDirectory() + "reveille-calendars",
            calendarFetchFolder: calendarFetchFolder ?? NSTemporaryDirectory() + "reveille-fetched-calendars",
            ring: ring, outlets: outlets, logger: logger)
        requests = Requests(
            controller: controller, store: store, ring: ring, outlets: outlets, apps: nil, bedside: nil,
            notes: DaemonNotes(), logger: logger)
        self.outlets = outlets
    }

    /// A request from connection `connection` with `role`: its answer, or nil when parked.
    func request(_ command: Command, role: Role = .owner, connection: Int? = nil) -> Response? {
        requests.serve(command, role: role, connection: connection) { "refused" }.response
    }
}

/// Log lines kept in memory, for tests that read what the daemon explained.
final class RecordedLog: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append("\(event.level): \(event.message)")
        }
    }
}
