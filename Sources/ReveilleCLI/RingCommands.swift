import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol

struct SnoozeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Snooze the ringing alarm (free while snoozes remain).")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        report(try send(.snooze, to: connection))
    }
}

struct AwakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "awake",
        abstract: "Answer the wake-up check: \"Are you up?\" (yes).",
        discussion: """
            An alarm with --wake-check asks "Are you up?" that long after it is dismissed, and \
            rings again if nobody answers in time (wake_check_seconds, 60 by default). This \
            answers it, as any bedside key, a tap on the page or a registered tag does. It counts \
            only while the check asks.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        report(try send(.awake, to: connection))
    }
}

struct DismissCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "Stop the ringing (or snoozed) alarm by answering a math problem.",
        discussion: """
            Shows the problem and reads your answer; a wrong answer gets a new problem. While you \
            answer, the sound is lower for up to 60 seconds. Alarms that take a tag stop when you \
            scan it on the reader.
            """)

    @Option(name: .long, help: "Answer the current problem without asking (for scripts).")
    var answer: Int?

    @Flag(name: .long, help: "Print the current problem (asking for one if none is shown) and exit, for scripts.")
    var problem = false

    @Flag(
        name: .long,
        help: "Dismiss the next ring before it rings (up to early_dismiss_minutes before it), with its challenge.")
    var next = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if problem && answer != nil { throw ValidationError("give --problem or --answer, not both") }
        if next && (problem || answer != nil) {
            throw ValidationError("--next asks its own challenge ('reveille unlock ID --answer N' for scripts)")
        }
    }

    func run() throws {
        if next { return report(try send(.dismissNext, to: connection)) }
        if problem {
            // The problem alone on standard output: `reveille dismiss --answer $(...)` answers it.
            let response = try send(.problem, to: connection)
            guard let text = response.problem else { return report(response) }
            return print(text)
        }
        if let answer {
            let response = try send(.answer(value: answer), to: connection)
            print(response.message ?? "")
            // 0 only once it is dismissed: a right answer with more problems to go prints the next.
            if response.correct != true || response.session?.state.isActive == true { throw ExitCode(1) }
            return
        }
        var response = try send(.problem, to: connection)
        if let session = response.session {
            print("Alarm \(session.name) is \(session.state). Solve to stop it:")
        }
        while let problem = response.problem {
            print("  \(problem) = ", terminator: "")
            fflush(nil)  // show the prompt before waiting for the answer
            guard let line = readLine() else {
                print("")
                printError("no answer (end of input); the alarm was not dismissed")
                throw ExitCode(1)
            }
            guard let value = Int(line.trimmed(newlines: false)) else {
                print("That is not a whole number; try again.")
                continue
            }
            response = try send(.answer(value: value), to: connection)
            if response.correct == true, response.session?.state.isActive != true {
                print(response.message ?? "dismissed")
                return
            }
            print(response.correct == true ? "Right. Next:" : "Wrong. Here is a new one:")
        }
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List past rings: when, snoozes, how and when they were stopped.")

    @Option(name: .long, help: "How many calendar days, today included.") var days = 7
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let entries = try send(.history(days: days), to: connection).history ?? []
        if output.json { return printJSON(entries) }
        guard !entries.isEmpty else { return print("nothing rang in the last \(counted(days, "day"))") }
        var table = Table("SCHEDULED", "ALARM", "RANG", "SNOOZES", "WRONG", "OUTCOME")
        for entry in entries {
            let name = Alarm.name(id: entry.alarmID, label: entry.label)
            table.add(
                cells: [
                    entry.scheduled, entry.test == true ? name + " (test)" : name, entry.started ?? "-",
                    "\(entry.snoozes)", "\(entry.wrongAnswers)", Self.outcome(entry),
                ])
        }
        table.print()
    }

    /// How one ring ended, as the OUTCOME column says it.
    static func outcome(_ entry: HistoryEntry) -> String {
        var outcome: String
        switch entry.state {
        case .dismissed where entry.early == true:
            let by = entry.dismissedTag.map { "tag \($0)" } ?? entry.dismissedBy?.rawValue ?? "?"
            outcome = "dismissed early by \(by) at \(entry.ended ?? "?"), before it rang"
        case .dismissed:
            let took = entry.secondsToDismiss.map { " after \(DurationText.format(seconds: $0))" } ?? ""
            let by = entry.dismissedTag.map { "tag \($0)" } ?? entry.dismissedBy?.rawValue ?? "?"
            outcome = "dismissed by \(by) at \(entry.ended ?? "?")\(took)"
        case .autoStopped: outcome = "stopped unanswered at \(entry.ended ?? "?")"
        case .missed: outcome = "missed (not rung)"
        case .ringing, .snoozed: outcome = entry.state.rawValue
        }
        if entry.fellBackToMath == true {
            outcome +=
                "; math stood in for the tag (\(ReaderFallbackNote.words(state: entry.readerState, secondsBeforeRing: entry.readerLostSecondsBeforeRing)))"
        }
        switch entry.wakeCheck {
        case "passed"?: outcome += "; up at the wake-up check"
        case "failed"?: outcome += "; wake-up check failed (rang again)"
        case let state?: outcome += "; wake-up check \(state)"
        case nil: break
        }
        if let joined = entry.joined {
            outcome += "; " + joined.map { "#\($0)" }.joined(separator: ", ") + " joined"
        }
        return outcome
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "How the mornings went: snoozes, time to get up, missed alarms.")

    @Option(name: .long, help: "How many calendar days, today included.") var days = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let stats = try send(.stats(days: days), to: connection).stats else { return }
        if output.json { return printJSON(stats) }
        print(
            """
            last \(counted(stats.days, "day")): \(stats.sessions) rang, \(stats.dismissed) dismissed, \
            \(stats.autoStopped) stopped unanswered, \(stats.missed) missed
            average snoozes: \(stats.averageSnoozes.map { NumberText.fixed($0, 1) } ?? "-")
            average time from first ring to dismissal: \(stats.averageSecondsToDismiss.map { DurationText.format(seconds: Int($0.rounded())) } ?? "-")
            wrong answers: \(stats.wrongAnswers)
            """)
        if let passed = stats.wakeChecksPassed, let failed = stats.wakeChecksFailed {
            print("wake-up checks: \(passed) passed, \(failed) failed")
        }
    }
}

struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Pass an alarm's challenge, to change it within its commitment.",
        discussion: """
            An alarm with --commit cannot be turned off, paused, moved later or softened in the \
            hours before its ring without its own challenge: its problem, or a tap of its tag. \
            This asks it and reads the answer; the alarm is then open to changes for 5 minutes. \
            Commands refused for this ask it by themselves when run in a terminal.
            """)

    @Argument(help: "The alarm's id (see 'reveille alarm list').") var id: Int
    @Option(name: .long, help: "Answer the problem without asking (for scripts).") var answer: Int?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws { try checkID(id, of: "alarm", list: "reveille alarm list") }

    func run() throws {
        if let answer {
            let response = try send(.unlock(alarmID: id, answer: answer), to: connection)
            print(response.message ?? "")
            if response.unlock?.unlocked != true { throw ExitCode(1) }
            return
        }
        guard try UnlockCommand.challenge(id, connection: connection) else { throw ExitCode(1) }
    }

    /// Asks alarm `id`'s challenge and reads the answer (or waits for its tag); true once unlocked.
    static func challenge(_ id: Int, connection: ConnectionOptions) throws -> Bool {
        var response = try send(.unlock(alarmID: id, answer: nil), to: connection)
        guard var info = response.unlock else { return false }
        if info.unlocked {
            print(response.message ?? "")
            return true
        }
        if info.tag { print("Tap a tag of alarm #\(id) on the reader\(info.problem == nil ? "" : ", or solve:")") }
        guard info.problem != nil else {
            // Only a tag unlocks it: wait for the reader to see one (the daemon polls for 2 minutes).
            for _ in 0..<240 {
                usleep(500_000)
                response = try send(.unlock(alarmID: id, answer: nil), to: connection)
                if response.unlock?.unlocked == true {
                    print(response.message ?? "")
                    return true
                }
            }
            printError("no tag was tapped in time; alarm #\(id) stays locked")
            return false
        }
        if !info.tag { print("To unlock alarm #\(id), solve:") }
        while let problem = info.problem {
            print("  \(problem) = ", terminator: "")
            fflush(nil)
            guard let line = readLine() else {
                print("")
                printError("no answer (end of input); alarm #\(id) stays locked")
                return false
            }
            guard let value = Int(line.trimmed(newlines: false)) else {
                print("That is not a whole number; try again.")
                continue
            }
            response = try send(.unlock(alarmID: id, answer: value), to: connection)
            guard let next = response.unlock else { return false }
            if next.unlocked {
                print(response.message ?? "")
                return true
            }
            print("Wrong. Here is a new one:")
            info = next
        }
        return false
    }
}
