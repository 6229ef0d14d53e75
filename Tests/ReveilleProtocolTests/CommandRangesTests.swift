import ReveilleCore
import ReveilleProtocol
import Testing

/// The commands' own numbers against their ranges (`Command.checkRanges`).
struct CommandRangesTests {
    @Test func aTagByItsUIDWaitsForNoTapSoItsTimeoutIsNotChecked() throws {
        try Command.tagAdd(label: "kitchen", uid: "04A1B2C3", timeoutSeconds: 0).checkRanges()
        #expect(throws: InputError.self) { try Command.tagAdd(label: "kitchen", uid: nil, timeoutSeconds: 0).checkRanges() }
        #expect(throws: InputError.self) { try Command.tagTest(timeoutSeconds: 301).checkRanges() }
    }
}
