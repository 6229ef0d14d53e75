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
}
