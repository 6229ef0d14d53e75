import FoundationEssentials
import Glibc
import Testing

@testable import ReveilleProtocol

/// "Refresh now": which request the fetcher owes a try, and when the daemon writes a new one.
@Suite struct FetchStateTests {
    @Test func aRequestIsOwedUntilATryAnswersItWhateverTheClocksSay() {
        var state = FetchState(url: "https://example.org/s.ics")
        #expect(!state.owes(request: nil))
        #expect(state.owes(request: 1000))
        // Answered at a try, even one whose own clock reads earlier than the request's.
        state.answered = 1000
        #expect(!state.owes(request: 1000))
        #expect(state.owes(request: 1060))
    }

    @Test func theNextTryIsTheBackoffElseAPeriodAfterTheLastFetch() {
        var state = FetchState(url: "https://example.org/s.ics")
        #expect(state.nextTry == nil)
        state.fetchedAt = 1000
        #expect(state.nextTry == 1000 + FetchState.every)
        state.retryAfter = 2000
        #expect(state.nextTry == 2000)
    }

    @Test func aRequestIsWrittenAgainOnlyAfterAMinuteOrOnceEveryCalendarAnswered() {
        var answered = FetchState(url: "https://example.org/a.ics")
        answered.answered = 1000
        let waiting = FetchState(url: "https://example.org/b.ics")
        #expect(FetchState.isNewRequest(at: 1000, after: nil, states: [waiting]))
        #expect(!FetchState.isNewRequest(at: 1030, after: 1000, states: [answered, waiting]))
        #expect(!FetchState.isNewRequest(at: 1030, after: 1000, states: [nil]), "never fetched: owes it")
        #expect(FetchState.isNewRequest(at: 1030, after: 1000, states: [answered]))
        #expect(FetchState.isNewRequest(at: 1000 + FetchState.askAgainAfter, after: 1000, states: [waiting]))
    }

    /// The fetcher writes `ID.json` and talks to the network; the daemon reads it on its loop. A
    /// FIFO in its place, or a huge file, is no state, and costs no wait.
    @Test func aFIFOOrAHugeFileIsNoStateAndNoWait() throws {
        let folder = "/tmp/reveille-fetchstate-\(getpid())"
        mkdir(folder, 0o700)
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let files = FetchState.files(in: folder, id: 1)
        #expect(mkfifo(files.state, 0o600) == 0)
        #expect(FetchState.read(files.state) == nil)
        #expect(mkfifo(folder + "/wanted", 0o600) == 0)
        #expect(FetchState.requested(at: folder + "/wanted") == nil)
        unlink(files.state)
        var state = FetchState(url: "https://example.org/s.ics")
        state.error = String(repeating: "x", count: 100_000)
        try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: files.state))
        #expect(FetchState.read(files.state) == nil)
        state.error = "HTTP 404"
        try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: files.state))
        #expect(FetchState.read(files.state) == state)
        try Data("1795800000\n".utf8).write(to: URL(fileURLWithPath: folder + "/asked"))
        #expect(FetchState.requested(at: folder + "/asked") == 1_795_800_000)
    }
}
