/// A problem the sleeper solves to prove they are awake (docs/guide/ringing.md, "When an alarm rings"). Answers are non-negative integers.
public struct MathProblem: Codable, Hashable, Sendable, CustomStringConvertible {
    /// As shown: `37 + 48`, `23 × 7 + 41`, `23 × 47 + 18 × 64`.
    public let text: String
    public let answer: Int

    public init(text: String, answer: Int) {
        self.text = text
        self.answer = answer
    }

    public var description: String { text }

    /// A new problem of `difficulty`, drawn from `generator`.
    /// - easy: `a + b`, two 2-digit numbers;
    /// - medium: `a × b + c`, a 2-digit times a 1-digit number (2-9), plus a 2-digit number;
    /// - hard: `a × b + c × d`, four 2-digit factors.
    public static func make(_ difficulty: MathDifficulty, using generator: inout some RandomNumberGenerator)
        -> MathProblem
    {
        // Drawn one after another, left to right, so that a seeded generator gives the same problem.
        let twoDigits = 10...99
        switch difficulty {
        case .easy:
            let a = Int.random(in: twoDigits, using: &generator)
            let b = Int.random(in: twoDigits, using: &generator)
            return MathProblem(text: "\(a) + \(b)", answer: a + b)
        case .medium:
            let a = Int.random(in: twoDigits, using: &generator)
            let b = Int.random(in: 2...9, using: &generator)
            let c = Int.random(in: twoDigits, using: &generator)
            return MathProblem(text: "\(a) × \(b) + \(c)", answer: a * b + c)
        case .hard:
            let a = Int.random(in: twoDigits, using: &generator)
            let b = Int.random(in: twoDigits, using: &generator)
            let c = Int.random(in: twoDigits, using: &generator)
            let d = Int.random(in: twoDigits, using: &generator)
            return MathProblem(text: "\(a) × \(b) + \(c) × \(d)", answer: a * b + c * d)
        }
    }
}
