import ReveilleSystem
import Testing

/// The waits on children (hooks, the calendar reader) end on the monotonic clock.
@Suite struct DeadlineTests {
    @Test func aDeadlineCountsDownAndRoundsPollsUp() {
        #expect(Deadline(in: 0).hasPassed && Deadline(in: -5).remaining == 0)
        let ten = Deadline(in: 10)
        #expect(!ten.hasPassed && ten.remaining > 9.9 && ten.remaining <= 10)
        #expect((9_900...10_000).contains(ten.pollMilliseconds))
        #expect(Deadline(in: 0.0001).pollMilliseconds <= 1)
        #expect(Deadline(in: 1e12).pollMilliseconds == Int32.max)
    }
}
