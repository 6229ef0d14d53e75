import Foundation
import ReveilleProtocol
import Testing

/// The README's tour, through the real binaries: a daemon under a temporary root, the CLI over the socket.
@Suite struct CLITourTests {
    /// Saturday 2026-11-21, 10:00 in Berlin.
    static let saturdayMorning = instant("2026-11-21 10:00:00")

    /// Every line of the README's tour, in order, against one daemon: each exits 0, and where its
    /// comment starts with →, its output starts with what follows (up to `...`).
    @Test func theReadmeTourRunsAsWritten() throws {
        let readme = try String(
            contentsOf: DeploymentTests.package.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## A five-minute tour").dropFirst().first)
        let block = try #require(
            section.components(separatedBy: "```sh\n").dropFirst().first?
                .components(separatedBy: "```").first)
        let daemon = try DaemonHarness(now: Self.saturdayMorning)
        var ran = 0
        for line in block.split(separator: "\n") where line.hasPrefix("reveille ") {
            let parts = line.components(separatedBy: "  #")
            let comment = parts.dropFirst().joined(separator: "  #").trimmingCharacters(in: .whitespaces)
            let expected: String? =
                comment.hasPrefix("→ ")
                ? String(comment.dropFirst(2)).components(separatedBy: "...")[0].trimmingCharacters(in: .whitespaces)
                : nil
            var output = ""
            for command in parts[0].components(separatedBy: " ; ") {
                let outcome = try daemon.cli(Array(Self.words(command).dropFirst()))
                #expect(outcome.status == 0, "\(command): \(outcome.stderr)")
                output += outcome.stdout
                ran += 1
            }
            if let expected { #expect(output.hasPrefix(expected), "\(line)\n\(output)") }
        }
        #expect(ran >= 20)
    }

    /// A line's words as the shell splits them: on spaces, a "quoted phrase" one word.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    @Test func alarmsRulesAndOverridesShowUpInNextWithTheirLayersAndSurviveARestart() throws {
        let daemon = try DaemonHarness(now: Self.saturdayMorning)
        #expect(
            try daemon.cli("alarm", "add", "6:45", "--days", "mon-fri", "--label", "work").stdout
                == "added alarm #1 work: 06:45 mon-fri; next ring Mon 2026-11-23 06:45\n")
        #expect(
            try daemon.cli("alarm", "add", "07:30", "--date", "2026-11-26").stdout
                == "added alarm #2: 07:30 once on 2026-11-26; next ring Thu 2026-11-26 07:30\n")
        #expect(
            try daemon.cli("rule", "add", "--days", "sat,sun", "--at", "9:00", "--alarm", "1").stdout
                == "added rule #1: sat,sun at 09:00, alarm #1\n")
        #expect(
            try daemon.cli("override", "add", "2026-11-25", "--off").stdout
                == "added override #1: 2026-11-25 off, all alarms\n")

        let next = try daemon.cli("next", "--days", "6")
        #expect(next.status == 0)
        #expect(
            next.stdout == """
                DATE        DAY  TIME   ALARM    DECIDED BY
                2026-11-21  Sat  -      -        -           nothing more today
                2026-11-22  Sun  09:00  #1 work  rule        rule #1
                2026-11-23  Mon  06:45  #1 work  base
                2026-11-24  Tue  06:45  #1 work  base
                2026-11-25  Wed  06:45  #1 work  override    silent: override #1: off
                2026-11-26  Thu  06:45  #1 work  base
                2026-11-26  Thu  07:30  #2       base

                """)

        let list = try daemon.cli("alarm", "list")
        #expect(
            list.stdout == """
                ID  LABEL  TIME   REPEAT           ON   CHALLENGE  SNOOZES  NEXT RING
                1   work   06:45  mon-fri          yes  math       3x9m     Sun 2026-11-22 09:00
                2   -      07:30  once 2026-11-26  yes  math       3x9m     Thu 2026-11-26 07:30

                """)

        let status = try daemon.cli("status")
        let lines = status.stdout.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(lines.first?.hasPrefix("reveilled 0.1.0, up ") == true)
        // The rules are the system's tzdata, whatever its version.
        #expect(
            lines.first?.contains(#/time zone Europe/Berlin \(tzdata 20\d\d[a-z]\), now Sat 2026-11-21 10:00$/#) == true
        )
        #expect(
            // The daemon's clock runs on from 10:00:00: on a loaded machine a second may have passed.
            lines.dropFirst().dropLast().joined(separator: "\n")
                .replacingOccurrences(of: "(in 22h 59m)", with: "(in 23h 0m)") == """
                    alarms: on (2 of 2 enabled)
                    next ring: Sun 2026-11-22 09:00, alarm #1 work (in 23h 0m), by weekly rule #1
                    NFC reader: none configured (alarms are dismissed by math)
                    sound: idle; devices: \(daemon.captureDevice), default
                    buttons: none found
                    voice: espeak-ng, voice en (loaded at the first sentence)
                    apps: \(isRoot ? "fanotify: no app listed, no exec waits for the guard" : "gate only: 'reveille run NAME' asks first (fanotify unavailable: fanotify_init: needs root (CAP_SYS_ADMIN))")
                    """)
        #expect(lines.last?.hasPrefix("daemon: ") == true)
        #expect(lines.last?.contains(" MB its own, the rest shared code); ") == true)
        #expect(lines.last?.hasSuffix(" threads") == true)

        // All of it survives a restart, and the stop is clean.
        _ = try daemon.cli("override", "add", "2026-11-23", "--at", "8:00")
        daemon.stop()
        #expect(daemon.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.paths.socket))
        #expect(daemon.logText().contains("reveilled stopped"))
        try daemon.start()
        #expect(
            try daemon.cli("next", "--days", "3").stdout.contains(
                "2026-11-23  Mon  08:00  #1 work  override    override #2"))
        #expect(try daemon.request(.alarmList).alarms?.map(\.label) == ["work", ""])
    }

    /// The peak memory the daemon reports is its own. getrusage's ru_maxrss would also carry the
    /// peak of the image replaced at exec: the process that started it, here one holding 512 MB.
    @Test func reportedPeakMemoryIsTheDaemonsOwn() throws {
        let size = 512 << 20
        let block = try #require(
            mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap {
                $0 == MAP_FAILED ? nil : $0
            })
        memset(block, 1, size)
        let daemon: DaemonHarness
        do {
            defer { munmap(block, size) }
            daemon = try DaemonHarness(now: Self.saturdayMorning)
        }
        let use = try #require(try daemon.request(.status).status?.resources)
        #expect(use.peakRSSKilobytes >= use.rssKilobytes)
        #expect(use.peakRSSKilobytes < 256 << 10, "peak \(use.peakRSSKilobytes) kB")
    }

    @Test func aSecondDaemonOnTheSameRootRefusesToStart() throws {
        let daemon = SharedDaemon.unchanged
        let second = try runProcess(Binaries.daemon, ["--root", daemon.root.path])
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("another reveilled is already listening on \(daemon.paths.socket); stop it first"))
        #expect(daemon.answersStatus())
    }
}
