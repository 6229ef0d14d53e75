import Foundation
import Glibc
import Logging
import ReveilleProtocol
import Synchronization
import Testing

@testable import ReveilleDaemon

/// What a peer of the control sockets can make the daemon log: `apps.sock` is open to every
/// local user, and a flood of lines would push the daemon's own out of journald's limit.
@Suite struct PeerLogBudgetTests {
    /// Keeps the lines it is given.
    final class Lines: LogHandler, @unchecked Sendable {
        let kept = Mutex<[String]>([])
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { kept.withLock { $0.append("\(event.level) \(event.message)") } }
        var count: Int { kept.withLock { $0.count } }
    }

    @Test func aFloodFromOnePeerIsTwentyLinesThenOneEveryTwoSecondsAndTheRestIsCounted() throws {
        let time = Mutex(1_000.0)
        let budget = PeerLogBudget(burst: 20, secondsPerLine: 2, now: { time.withLock { $0 } })
        let lines = Lines()
        let logger = Logger(label: "reveilled") { _ in PeerBudgetLogHandler(lines, budget: budget) }
        budget.serving(1000, limited: true) {
            for index in 0..<1000 { logger.info("request \(index) refused") }
        }
        #expect(lines.count == 20)
        // The daemon's own lines, outside any peer's requests, are all written.
        logger.notice("alarm #1 rings")
        #expect(lines.count == 21)
        // Another user has a budget of its own; an admin's requests have none.
        budget.serving(1001, limited: true) { logger.info("another user") }
        budget.serving(0, limited: false) { for _ in 0..<100 { logger.info("an admin's") } }
        #expect(lines.count == 122)
        // Two seconds on: the flooding user's next line, after one saying how many were not written.
        time.withLock { $0 += 2 }
        budget.serving(1000, limited: true) { logger.info("request 1000 refused") }
        let last = lines.kept.withLock { Array($0.suffix(2)) }
        #expect(
            last == [
                "notice uid 1000: 980 more lines its requests caused were not logged (at most 20 at once, then one every 2 s)",
                "info request 1000 refused",
            ])
    }

    @Test func aLineFromAnotherThreadWhileAPeerIsServedIsNotCounted() throws {
        let budget = PeerLogBudget(burst: 1, secondsPerLine: 60, now: { 0 })
        let lines = Lines()
        let logger = Logger(label: "reveilled") { _ in PeerBudgetLogHandler(lines, budget: budget) }
        budget.serving(1000, limited: true) {
            logger.info("one")
            logger.info("dropped")
            let other = Thread { logger.notice("the reader is back") }
            other.start()
            while !other.isFinished { usleep(1000) }
        }
        #expect(lines.kept.withLock { $0 } == ["info one", "notice the reader is back"])
    }

    /// The real daemon: a thousand refused requests on the apps socket (where root is no one
    /// special) make a few lines, and the daemon answers as before.
    @Test func aThousandRefusedRequestsOnTheAppsSocketAreAFewLines() throws {
        let daemon = try DaemonHarness(now: CLITourTests.saturdayMorning)
        let before = daemon.logText().split(separator: "\n").count
        let client = try ControlClient(path: daemon.paths.appsSocket)
        for _ in 0..<1000 {
            #expect(try client.send(.appAsk(name: "nothing", minutes: 5, why: "flood")).ok == false)
        }
        #expect(daemon.answersStatus())
        let lines = daemon.logText().split(separator: "\n")
        #expect(lines.count - before <= 25, "\(lines.suffix(5))")
        #expect(lines.filter { $0.contains("'appAsk'") }.count <= 21)
    }
}
