import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore

/// The command line as typed, made into what swift-argument-parser reads, before it does.
enum Arguments {
    /// A negative number (`-3`) would be read as a short option. After an option that takes a
    /// value it is joined to it (`--answer=-3`); in a command's arguments it goes after `--`
    /// (`alarm rm -1` becomes `alarm rm -- -1`), so that the command can name the value and
    /// say what is allowed.
    static func normalized(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                positional += arguments[(index + 1)...]
                break
            }
            if isNegativeNumber(argument) {
                if let last = result.last, last.hasPrefix("--"), !last.contains("="), takesValue(last) {
                    result[result.count - 1] = last + "=" + argument
                } else {
                    positional.append(argument)
                }
            } else {
                result.append(argument)
            }
            index += 1
        }
        return positional.isEmpty ? result : result + ["--"] + positional
    }

    static func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix("-") && text.dropFirst().allSatisfy(\.isASCII) && Int(text) != nil
    }

    /// Options that are flags, never followed by a value (`HelpTextTests` checks this against
    /// every command's help).
    static let flags: Set<String> = [
        "--json", "--help", "--version", "--off", "--brief", "--watch", "--no-tone", "--skip-holidays",
        "--no-skip-holidays", "--color", "--all-alarms", "--plain", "--admin", "--holidays",
        "--force", "--reminders", "--no-then", "--with-alarms", "--no-with-alarms", "--enabled", "--no-enabled", "--all", "--problem",
        "--all-day", "--no-limit", "--next", "--lead-sound", "--no-lead-sound", "--timed", "--background",
        "--open-now", "--open",
    ]

    static func takesValue(_ option: String) -> Bool { !flags.contains(option) }

    /// `reveille stauts`: the nearest command, when one is near enough to be what was meant.
    static func suggestion(for word: String, among names: [String]) -> String? {
        let scored = names.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        guard let (name, score) = scored, score <= max(1, word.count / 3) else { return nil }
        return name
    }

    /// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours
    /// (optimal string alignment), so that `stauts` is one edit from `status`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}

/// An alarm, rule or override id as typed: a usage error (exit 64) unless it is 1 or more.
func checkID(_ id: Int, of thing: String, list: String) throws {
    guard id >= 1 else { throw ValidationError("\(thing) id \(id): ids are 1 or more; see '\(list)'") }
}
