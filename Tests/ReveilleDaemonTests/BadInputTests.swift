import Foundation
import Testing

/// CLI misuse and refused requests: a clear message naming the thing and what to do, a nonzero
/// exit, nothing lost, and the daemon still answering.
@Suite struct BadInputTests {
    static let usageTail =
        "Usage: reveille alarm add [<options>] [<time>]\n  See 'reveille alarm add --help' for more information.\n"

    @Test func impossibleTimesAndDaysAreUsageErrors() throws {
        let daemon = SharedDaemon.unchanged
        let time = try daemon.cli("alarm", "add", "25:00")
        #expect(time.status == 64)
        #expect(time.stderr == "reveille: time \"25:00\": hour must be 0-23\n" + Self.usageTail)
        let days = try daemon.cli("alarm", "add", "7:00", "--days", "funday")
        #expect(days.status == 64)
        #expect(
            days.stderr
                == "reveille: days \"funday\": unknown day \"funday\"; use day names (mon,tue,wed,thu,fri,sat,sun), "
                + "ranges like mon-fri, or daily, weekdays, weekends\n" + Self.usageTail)
        let date = try daemon.cli("alarm", "add", "7:00", "--date", "2027-02-29")
        #expect(date.status == 64)
        #expect(date.stderr.hasPrefix("reveille: date \"2027-02-29\": February 2027 has 28 days\n"))
        let both = try daemon.cli("rule", "add", "--days", "sat", "--off", "--at", "9:00")
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("reveille: give either --off or --at TIME, not both\n"))
        #expect(try daemon.cli("alarm", "list").stdout.hasPrefix("no alarms"))
    }

    @Test(arguments: [
        (["alarm", "rm", "42"], "no alarm #42; 'reveille alarm list' shows the ids"),
        (["alarm", "edit", "42", "--volume", "5"], "no alarm #42; 'reveille alarm list' shows the ids"),
        (["alarm", "enable", "42"], "no alarm #42; 'reveille alarm list' shows the ids"),
        (["rule", "rm", "42"], "no rule #42; 'reveille rule list' shows the ids"),
        (["override", "rm", "42"], "no override #42; 'reveille override list' shows the ids"),
        (
            ["rule", "add", "--days", "sat", "--off", "--alarm", "42"],
            "no alarm #42; 'reveille alarm list' shows the ids"
        ),
        (["override", "add", "2026-11-20", "--off"], "date 2026-11-20 is in the past (today is 2026-11-21)"),
        (
            ["pause", "--until", "today"],
            "--until 2026-11-21: must be after today (2026-11-21); alarms ring again from that date"
        ),
        (["alarm", "add", "7:00", "--volume", "101"], "volume 101: must be 0-100"),
        (
            ["alarm", "add", "7:00", "--date", "today"],
            "2026-11-21 07:00 has already passed; pick a later date or time"
        ),
        (
            ["alarm", "add", "7:00", "--days", "mon", "--date", "tomorrow"],
            "give one of --days (repeating), --date (one-shot) or --in (one-shot from now)"
        ),
    ])
    func refusalsNameTheThingAndWhatToDo(arguments: [String], message: String) throws {
        let daemon = SharedDaemon.unchanged
        let outcome = try runProcess(Binaries.cli, arguments, environment: ["REVEILLE_ROOT": daemon.root.path])
        // Something that is not there is a refusal (1); a value out of range an input mistake (64).
        #expect(outcome.status == (message.hasPrefix("no ") ? 1 : 64))
        #expect(outcome.stderr == "reveille: \(message)\n")
        #expect(outcome.stdout == "")
        #expect(daemon.answersStatus())
    }

    @Test func noDaemonMeansAClearMessage() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-none-\(UUID())").path
        let outcome = try runProcess(Binaries.cli, ["status", "--root", root])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr == "reveille: reveilled is not running (no answer at \(root)/run/reveille/control.sock); "
                + "start it with 'make run' or 'sudo systemctl start reveille'\n")
    }

    @Test func aBadDaemonOptionIsAUsageError() throws {
        let outcome = try runProcess(Binaries.daemon, ["--root", "/tmp/x", "--time-zone", "Mars/Olympus"])
        #expect(outcome.status == 64)
        #expect(
            outcome.stderr.hasPrefix(
                "Error: time zone \"Mars/Olympus\" is not a time zone (none such in /usr/share/zoneinfo); try Europe/Berlin or America/New_York\n"
            ))
    }

    @Test func anUnwritableRootIsExplainedAtStart() throws {
        let outcome = try runProcess(Binaries.daemon, ["--root", "/proc/reveille"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot start: cannot create /proc/reveille/var/lib/reveille:"))
        #expect(outcome.stderr.contains("run as root, or use --root DIR for a development setup"))
    }
}
