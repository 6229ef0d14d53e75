import CTestSupport
import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// The command line as a tired person meets it (README, "A five-minute tour" and "Commands"):
/// exact output and exit codes for input mistakes, warnings, and the everyday commands.
@Suite struct CLIPolishTests {
    static let saturday = CLITourTests.saturdayMorning

    @Test(arguments: [
        ["pause", "--until", "2026-13-01"], ["history", "--days", "0"], ["alarm", "add", "7:00", "--volume", "150"],
        ["alarm", "add", "7:00", "--snooze-minutes", "0"], ["alarm", "add", "7:00", "--snooze-minutes", "9,,5"],
        ["tag", "add", "--label", "x", "--uid", "ZZZZ"],
        ["alarm", "add", "7:00", "--in", "5m"], ["alarm", "add", "7:00", "--date", "2026-12-01", "--days", "mon"],
        ["alarm", "add", "--in", "5"], ["alarm", "rm", "-1"], ["stauts"], ["month", "2026-13"],
    ])
    func everyInputMistakeExits64(arguments: [String]) throws {
        let daemon = SharedDaemon.unchanged
        let outcome = try daemon.cli(arguments)
        #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
        #expect(outcome.stdout == "")
        #expect(try daemon.request(.alarmList).alarms?.isEmpty == true, "nothing was added")
    }

    @Test func negativeNumbersDurationsAndUnknownCommandsAreNamed() throws {
        let daemon = SharedDaemon.unchanged
        // Read as a value, not as an option: the daemon answers about it.
        let answer = try daemon.cli("dismiss", "--answer", "-3")
        #expect(answer.status == 1 && answer.stderr == "reveille: nothing is ringing\n")
        let id = try daemon.cli("alarm", "rm", "-1")
        #expect(id.stderr.hasPrefix("reveille: alarm id -1: ids are 1 or more; see 'reveille alarm list'\n"))
        let bare = try daemon.cli("alarm", "add", "--in", "5")
        #expect(bare.stderr.hasPrefix("reveille: duration \"5\": give a unit, like 5m (minutes), 5s or 5h\n"))
        let far = try daemon.cli("alarm", "add", "--in", "200h")
        #expect(far.stderr.hasPrefix("reveille: duration \"200h\": must be 1 second to 7 days\n"))
        let typo = try daemon.cli("stauts")
        #expect(
            typo.stderr
                == "reveille: unknown command 'stauts'; did you mean 'status'?\n  See 'reveille --help' for the commands.\n"
        )
        let nested = try daemon.cli("alarm", "lst")
        #expect(nested.status == 64)
        #expect(nested.stderr.hasPrefix("reveille: unknown command 'lst'; did you mean 'list'?\n"))
        let option = try daemon.cli("alarm", "add", "7:00", "--lable", "x")
        #expect(option.stderr.hasPrefix("reveille: Unknown option '--lable'. Did you mean '--label'?\n"))
        // The month view: a month gone by is a usage mistake, and the current one prints.
        let past = try daemon.cli("month", "2026-10")
        #expect(past.status == 64)
        #expect(past.stderr == "reveille: 2026-10: that month is over; 'reveille history' shows what rang\n")
        let month = try daemon.cli("month")
        #expect(month.status == 0 && month.stdout.hasPrefix("November 2026\nMon      Tue"), "\(month)")
    }

    @Test func everySubcommandsHelpListsRoot() throws {
        let commands = [
            "status", "snooze", "dismiss", "next", "month", "alarm add", "alarm list", "alarm show", "alarm edit",
            "alarm rm", "alarm enable", "alarm disable", "alarm test", "rule add", "rule list", "rule edit", "rule rm",
            "override add", "override list", "override edit", "override rm", "pause", "resume", "history", "stats",
            "sound test", "sound stop", "sound devices", "tag add", "tag list", "tag rm", "tag test", "apps status",
            "apps check", "apps grant", "apps validate", "run", "doctor",
        ]
        for command in commands {
            let help = try runProcess(Binaries.cli, command.split(separator: " ").map(String.init) + ["--help"])
            #expect(help.stdout.contains("--root <dir>"), "\(command) --help")
        }
    }

    @Test func labelsRefuseControlCharactersAndBlanks() throws {
        let daemon = SharedDaemon.unchanged
        let newline = try daemon.cli("alarm", "add", "7:00", "--label", "a\nb")
        #expect(newline.status == 64)
        #expect(
            newline.stderr
                == "reveille: label: control character U+000A is not allowed; use letters, digits, spaces and punctuation\n"
        )
        let escape = try daemon.cli("alarm", "add", "7:00", "--label", "\u{1B}[31mred")
        #expect(escape.stderr.contains("control character U+001B is not allowed"))
        let blank = try daemon.cli("alarm", "add", "7:00", "--label", "   ")
        #expect(blank.stderr == "reveille: label: only spaces; give a name, like work, or \"\" for none\n")
        #expect(try daemon.request(.alarmList).alarms?.isEmpty == true)
    }

    // Tables fit wide characters: InProcessReportTests.alarmListPadsWideLabelsByTheirWidth.

    @Test func showTestAndTheEverydayCommands() throws {
        let daemon = try DaemonHarness(now: Self.saturday)
        _ = try daemon.cli("alarm", "add", "6:45", "--days", "mon-fri", "--label", "work", "--max-snoozes", "1")
        // The daemon's clock runs on from 10:00:00: a minute may have begun.
        #expect(
            try daemon.cli("next", "--brief").stdout.wholeMatch(
                of: #/Mon 06:45 #1 work \(in 1d 20h 4[45]m; as set\)\n/#)
                != nil)
        #expect(
            try daemon.cli("alarm", "show", "1").stdout == """
                alarm #1
                  label       work
                  time        06:45
                  repeats     mon-fri
                  on          yes
                  next ring   Mon 2026-11-23 06:45
                  sound       the configured sound, else the built-in tone
                  volume      80, rising over 30 s
                  challenge   math (medium)
                  tags        any registered tag
                  snoozes     1, 9 min each
                  holidays    rings on holidays
                  wake check  off
                  escalate    off
                  commitment  off
                  sunrise     off

                """)
        #expect(
            try daemon.cli("alarm", "show", "7").stderr
                == "reveille: no alarm #7; 'reveille alarm list' shows the ids\n")

        // A rule and an override, changed in place.
        _ = try daemon.cli("rule", "add", "--days", "fri", "--off")
        #expect(
            try daemon.cli("rule", "edit", "1", "--days", "sat", "--at", "9:30").stdout
                == "changed rule #1: sat at 09:30, all alarms\n")
        _ = try daemon.cli("override", "add", "2026-11-24", "--off")
        #expect(
            try daemon.cli("override", "edit", "1", "--at", "7:15", "--alarm", "1").stdout
                == "changed override #1: 2026-11-24 at 07:15, alarm #1\n")
        let both = try daemon.cli("override", "edit", "1", "--alarm", "1", "--all-alarms")
        #expect(both.status == 64 && both.stderr.hasPrefix("reveille: give --alarm ID or --all-alarms, not both\n"))
        #expect(
            try daemon.cli("rule", "edit", "9", "--off").stderr
                == "reveille: no rule #9; 'reveille rule list' shows the ids\n")

        // A test rings now, as the alarm would, and is recorded as one.
        let test = try daemon.cli("alarm", "test", "1")
        #expect(
            test.stdout
                == "alarm #1 work rings now as a test; stop it as it asks: answer a math problem with 'reveille dismiss'\n"
        )
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        #expect(try daemon.cli("status").stdout.hasPrefix("RINGING (a test): alarm #1 work (due "))
        #expect(try daemon.cli("alarm", "test", "1").stderr == "reveille: alarm #1 work is ringing; dismiss it first\n")
        #expect(
            try daemon.cli("sound", "stop").stderr
                == "reveille: alarm #1 work is ringing, not a sound test: 'reveille dismiss' stops it\n")
        _ = try daemon.cli("snooze")
        try daemon.setNow(Self.saturday + 10 * 60 + 30)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let last = try daemon.cli("status").stdout
        #expect(last.hasPrefix("RINGING (a test): alarm #1 work (due 10:00"))
        #expect(last.contains("); no snoozes left: it must be dismissed\n"))
        let removed = try daemon.cli("pause")
        #expect(
            removed.stderr
                == "reveille: warning: alarm #1 work is still ringing: it stops only when dismissed ('reveille dismiss')\n"
        )
        _ = try daemon.cli("resume")
        #expect(try daemon.dismissByMath().status == 0)
        let history = try daemon.cli("history").stdout
        #expect(history.contains("#1 work (test)"))
        #expect(try daemon.cli("stats").stdout.hasPrefix("last 30 days: 0 rang"))
        #expect(try daemon.cli("alarm", "list", "--json").stdout.contains(#""enabled" : true"#))

        // sound stop ends a sound test.
        #expect(try daemon.cli("sound", "stop").stdout == "no sound test is playing\n")
        _ = try daemon.cli("sound", "test", "--seconds", "60")
        #expect(try daemon.cli("sound", "stop").stdout == "stopped the sound test\n")
        #expect(daemon.waitFor(2) { daemon.logText().contains("sound test stopped") })
    }

    @Test func doctorSpeaksJSON() throws {
        let daemon = SharedDaemon.unchanged
        let doctor = try daemon.cli("doctor", "--no-tone", "--json")
        let findings = try #require(
            try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]])
        #expect(findings.contains { $0["subject"] as? String == "daemon" && $0["level"] as? String == "ok" })
        #expect(findings.allSatisfy { ["ok", "note", "warn", "FAIL"].contains($0["level"] as? String ?? "") })
    }

    /// Interactive `dismiss` on a real terminal (a pseudo-terminal): a non-number, a wrong answer,
    /// end of input; then the right answer.
}

/// A program on a pseudo-terminal: what a person at a terminal sees and types.
final class TerminalSession {
    let process = Process()
    private let master: Int32
    private(set) var output = ""

    init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
        var name = [CChar](repeating: 0, count: 128)
        master = RVT_open_pty(&name, name.count)
        guard master >= 0 else { throw HarnessError("cannot open a pseudo-terminal") }
        let slave = try FileHandle(forUpdating: URL(fileURLWithPath: String(cString: name)))
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        try slave.close()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    func write(_ text: String) {
        _ = text.utf8CString.dropLast().withUnsafeBufferPointer { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Reads until `text` has appeared (true), or 5 s pass.
    func read(until text: String) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !output.contains(text), Date() < deadline {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = Glibc.read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            output += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return output.contains(text)
    }

    /// Waits for the program to end, keeping what it wrote last; its exit status.
    func wait() -> Int32 {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 50) > 0 {
                let count = Glibc.read(master, &buffer, buffer.count)
                if count <= 0 { break }  // EIO: the program closed the terminal
                output += String(decoding: buffer[0..<count], as: UTF8.self)
            } else if !process.isRunning {
                break
            }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
