import Foundation
import ReveilleProtocol
import ReveilleStore
import Testing

/// Setting up apps from the CLI, the policy in force and hand edits of apps.toml (README,
/// "Setting up apps", "Where the app policy lives"), and a child's side: their own status,
/// asking for more, and an admin's answer (docs/guide/apps.md, "A child's side").
@Suite struct AppSetupTests {
    static let nobody = 65_534
    /// Debian's `daemon` account (uid 1): a second user with no rights here.
    static let daemonUser = 1

    static func appsFile(_ daemon: DaemonHarness) -> URL {
        daemon.root.appendingPathComponent("etc/reveille/apps.toml")
    }

    @Test func appsAreSetUpFromTheCLIWithCategoriesSummariesAndTheNotConfiguredState() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 16:00:00"))
        let added = try daemon.cli(
            "apps", "add", "game", "--path", "/usr/games/game", "--category", "reward", "--user", "nobody")
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout == "added game: 1h weekdays, 2h weekends · 15:00–20:00\n")

        let learning = try daemon.cli("apps", "add", "maths", "--path", "/usr/bin/maths", "--category", "learning")
        #expect(learning.status == 64)
        #expect(
            learning.stderr
                == "reveille: app \"maths\" limit_minutes: a learning app needs its daily limits (limit_minutes); it gets no defaults\n"
        )
        #expect(
            try daemon.cli(
                "apps", "add", "maths", "--path", "/usr/bin/maths", "--category", "learning", "--weekdays", "30",
                "--weekends", "60", "--hours", "08:00-19:00"
            ).stdout == "added maths: 30m weekdays, 1h weekends · 08:00–19:00\n")
        for bad in ["7", "500"] {
            let refused = try daemon.cli("apps", "edit", "maths", "--limit", bad)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("limit \(bad) is not allowed; use 0-480 minutes in steps of 5"))
        }

        let chess = try daemon.cli("apps", "add", "chess", "--path", "/usr/games/chess")
        #expect(chess.status == 0)
        #expect(chess.stderr.contains("warning: chess is not configured, so it is blocked"))
        let list = try daemon.cli("apps", "list").stdout
        #expect(
            row(list, "chess") == ["chess", "-", "⚠️", "Not", "configured", "the", "people", "here", "/usr/games/chess"])
        #expect(
            row(list, "game")?.prefix(9) == [
                "game", "reward", "1h", "weekdays,", "2h", "weekends", "·", "15:00–20:00", "nobody",
            ])
        #expect(!list.contains("changed here since"), "there is no apps.toml to differ from")
        #expect(try daemon.cli("apps", "edit", "chess", "--user", "nobody").status == 0)
        let check = try daemon.cli("apps", "check", "chess", "--user", "nobody")
        #expect(check.status == 1)
        #expect(check.stderr.contains("chess: not set up yet: an admin chooses its hours and daily limits"))
        #expect(
            try daemon.cli("doctor").stdout.contains("warn  app chess: ⚠️ Not configured: it is blocked until it is"))

        // Edit keeps what is not given; --day is the advanced per-day mode.
        #expect(
            try daemon.cli("apps", "edit", "game", "--day", "fri=180", "--weekend-hours", "09:00-20:00").stdout
                == "changed game: Mon 1h, Tue 1h, Wed 1h, Thu 1h, Fri 3h, Sat 2h, Sun 2h · 15:00–20:00 weekdays, 09:00–20:00 weekends\n"
        )
        #expect(try daemon.cli("apps", "edit", "chess", "--all-day", "--limit", "45").status == 0)
        let removed = try daemon.cli("apps", "rm", "maths")
        #expect(removed.stdout == "removed maths; it is no longer limited\n")
        #expect(try daemon.cli("apps", "rm", "maths").stderr.contains("no app \"maths\" in the policy"))

        // What export prints is a policy apps validate accepts, and the same policy.
        let exported = try daemon.cli("apps", "export").stdout
        let file = daemon.root.appendingPathComponent("exported.toml").path
        try exported.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try daemon.cli("apps", "validate", file).stdout == "\(file): ok, 2 apps (game, chess)\n")
        // A long file is named in a line: its first ten apps, and how many more.
        let many = daemon.root.appendingPathComponent("many.toml").path
        try (0..<12).map { "[[app]]\nname = \"g\($0)\"\npaths = [\"/usr/games/g\($0)\"]\n" }.joined(separator: "\n")
            .write(toFile: many, atomically: true, encoding: .utf8)
        #expect(
            try daemon.cli("apps", "validate", many).stdout
                == "\(many): ok, 12 apps (g0, g1, g2, g3, g4, g5, g6, g7, g8, g9 and 2 more)\n")
        #expect(exported.contains(#"limit_minutes = { weekdays = 60, weekends = 120, fri = 180 }"#))

        // It all survives a restart: the policy in force is kept in the state.
        daemon.stop()
        try daemon.start()
        #expect(
            row(try daemon.cli("apps", "list").stdout, "chess")?.prefix(6) == [
                "chess", "-", "45m", "daily", "·", "all",
            ])
    }

    @Test func aHandEditJoinsThePolicyInForceAndAClashIsShownNotLost() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 16:00:00"))
        try """
        [[app]]
        name = "game"
        paths = ["/usr/games/game"]
        limit_minutes = 60

        [[app]]
        name = "tv"
        paths = ["/usr/bin/tv"]
        limit_minutes = 30
        """.write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(5) { try daemon.request(.appList).appsReply?.policy?.apps.count == 2 })
        let revision = try #require(try daemon.request(.appList).appsReply?.policy?.revision)

        // The page changes game; then root hand-edits tv in the file (game in the file as it was).
        #expect(try daemon.cli("apps", "edit", "game", "--limit", "90").status == 0)
        try """
        [[app]]
        name = "game"
        paths = ["/usr/games/game"]
        limit_minutes = 60

        [[app]]
        name = "tv"
        paths = ["/usr/bin/tv"]
        limit_minutes = 45
        """.write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(5) { try daemon.cli("apps", "list").stdout.contains("45m daily") })
        let list = try daemon.cli("apps", "list").stdout
        #expect(row(list, "game")?.prefix(3) == ["game", "-", "1h30m"], "the page's edit stands: \(list)")
        #expect(list.contains("changed here since \(daemon.paths.appPolicy) was last edited: game"))

        // An editor holding an older revision is refused: nothing is written over the newer policy.
        var stale = AppSetupShape.game
        stale.limits = ["mon": 5]
        let refused = try daemon.request(.appPut(setup: stale, adding: false, revision: revision))
        #expect(refused.error?.message.hasPrefix("the apps changed since you opened them") == true)

        // Both change game, differently: the one in force stays, and the clash is said until fixed.
        try String(contentsOf: Self.appsFile(daemon), encoding: .utf8).replacingOccurrences(
            of: "limit_minutes = 60", with: "limit_minutes = 20"
        ).write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(5) { try daemon.cli("apps", "list").stdout.contains("NOT APPLIED") })
        #expect(row(try daemon.cli("apps", "list").stdout, "game")?.prefix(3) == ["game", "-", "1h30m"])
        #expect(
            try daemon.cli("doctor").stdout.contains(
                "warn  app policy: apps.toml's change to \"game\" was not applied"))
        // The file brought up to date with export: the clash is gone.
        let exported = try daemon.cli("apps", "export").stdout
        try exported.write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(5) { try !daemon.cli("apps", "list").stdout.contains("NOT APPLIED") })
        #expect(try !daemon.cli("apps", "list").stdout.contains("changed here since"))
    }

    @Test(.enabled(if: isRoot, "needs root: the clients must run as other users (setpriv) to be other peers"))
    func aChildSeesOnlyTheirOwnAppsAsksForMoreAndOnlyAnAdminAnswers() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 16:00:00"))
        #expect(
            try daemon.cli(
                "apps", "add", "game", "--path", "/usr/games/game", "--category", "reward", "--user", "nobody",
                "--user", "daemon"
            ).status == 0)
        #expect(
            try daemon.cli("apps", "add", "tv", "--path", "/usr/bin/tv", "--limit", "30", "--user", "daemon").status
                == 0)

        // nobody is in no group the daemon knows: the control socket is closed to them, the apps
        // socket answers about their own apps only.
        let mine = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "apps", "status")
        #expect(mine.status == 0, "\(mine)")
        #expect(row(mine.stdout, "APP") == ["APP", "NOW", "USED", "LEFT", "WHY", "SETUP"], "\(mine.stdout)")
        #expect(row(mine.stdout, "game")?.prefix(7) == ["game", "allowed", "0", "min", "60", "of", "60"])
        #expect(!mine.stdout.contains("tv"), "not nobody's app")
        let others = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "apps", "status", "--user", "daemon")
        #expect(others.status == 1 && others.stderr.contains("no permission to use"))
        #expect(try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "status").status == 1)

        // A watcher on the apps socket hears only their own: root there is no one special.
        let appsWatcher = try ControlClient(path: daemon.paths.appsSocket)
        #expect(try appsWatcher.send(.watch).ok)
        let householdWatcher = try daemon.connect()
        #expect(try householdWatcher.send(.watch).ok)

        let asked = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "apps", "ask", "game", "--minutes", "30", "--why", "homework done")
        #expect(
            asked.stdout
                == "asked for 30 more minutes of game (request #1); an admin answers on the clock's page or with 'reveille apps approve 1'\n",
            "\(asked)")
        let again = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "apps", "ask", "game", "--minutes", "30")
        #expect(
            again.status == 64
                && again.stderr == "reveille: you already asked; wait for the answer (reveille apps requests)\n")
        let odd = try daemon.cli(asUID: Self.daemonUser, gid: Self.daemonUser, "apps", "ask", "game", "--minutes", "7")
        #expect(odd.status == 64 && odd.stderr.contains("ask for 5-120 minutes, in steps of 5"))
        // An app that limits someone else and one that does not exist get the same words: a
        // stranger learns nothing of the policy.
        let notMine = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "apps", "ask", "tv", "--minutes", "30")
        let noSuch = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "apps", "ask", "nosuchapp", "--minutes", "30")
        #expect(
            notMine.status == 1
                && notMine.stderr
                    == "reveille: no app \"tv\" limits nobody: there is nothing to ask for ('reveille apps status' lists your apps)\n",
            "\(notMine.stderr)")
        #expect(noSuch.status == notMine.status)
        #expect(noSuch.stderr == notMine.stderr.replacingOccurrences(of: "\"tv\"", with: "\"nosuchapp\""))
        #expect(!noSuch.stderr.contains("game") && !noSuch.stderr.contains("tv"))

        let line = try #require(try householdWatcher.readLine())
        let event = try JSONDecoder().decode(WatchLine.self, from: Data(line)).event
        guard case .appRequest(let request) = event else {
            Issue.record("expected the request, got \(event)")
            return
        }
        #expect(request.user == "nobody" && request.why == "homework done" && request.state == .waiting)

        // The second user sees none of it and cannot answer.
        #expect(
            try daemon.cli(asUID: Self.daemonUser, gid: Self.daemonUser, "apps", "requests").stdout
                == "no requests today\n")
        let answer = try daemon.cli(asUID: Self.daemonUser, gid: Self.daemonUser, "apps", "approve", "1")
        #expect(answer.status == 1 && answer.stderr.contains("no permission to use"))
        #expect(
            try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "apps", "requests").stdout
                == "16:00 request #1: nobody asks for 30 more minutes of game (\"homework done\")\n")

        // An admin approves: the minutes are nobody's, today.
        #expect(
            try daemon.cli("apps", "approve", "1").stdout
                == "request #1: 30 more minutes of game: approved (\"homework done\") by root for nobody, today\n")
        #expect(
            try daemon.cli("apps", "approve", "1").stderr == "reveille: request #1 was already answered (approved)\n")
        let granted = try daemon.request(.appCheck(name: "game", user: "nobody")).apps?.first
        #expect(granted?.limitMinutes == 90 && granted?.grantMinutes == 30)
        #expect(try daemon.request(.appCheck(name: "game", user: "daemon")).apps?.first?.grantMinutes == 0)

        // The apps socket's watcher heard nothing: those were nobody's events, and it is root's.
        var readable = pollfd(fd: appsWatcher.descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&readable, 1, 300) == 0)
    }
}

extension AppSetupTests {
    /// A clock upgraded from a version that kept only the last good apps.toml: with the file
    /// broken at start, that copy is the policy in force, and stays so once the file is fixed
    /// and merged.
    /// apps.toml is read and checked off the event loop, as calendars are: while a file of
    /// sixty thousand apps is checked (seconds in a debug build), the daemon answers at once, and a
    /// change written meanwhile is taken; the long read, overtaken, is dropped, never taken after it.
    @Test(.timeLimit(.minutes(2))) func aLongReadOfAppsTomlHoldsNoRequestAndALaterChangeOvertakesIt() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 16:00:00"))
        let pid = daemon.process.processIdentifier
        /// Whether the daemon has a thread reading apps.toml now.
        func reading() -> Bool {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.contains { task in
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.hasPrefix(
                    "apps-policy") == true
            }
        }
        var big = ""
        for index in 0..<60_000 {
            big += "[[app]]\nname = \"game\(index)\"\npaths = [\"/usr/games/game\(index)\"]\nlimit_minutes = 45\n\n"
        }
        try big.write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(daemon.waitFor(10) { reading() }, "apps.toml is read on a thread of its own")
        #expect(try daemon.request(.status).status != nil)
        #expect(reading(), "the daemon answered while the file was being read")

        try "[[app]]\nname = \"game\"\npaths = [\"/usr/games/game\"]\nlimit_minutes = 30\n".write(
            to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(10) { try daemon.cli("apps", "list").stdout.contains("30m daily") })
        #expect(daemon.waitFor(60) { daemon.logText().contains("a read of apps.toml was overtaken by a later change") })
        let list = try daemon.cli("apps", "list").stdout
        #expect(list.contains("30m daily") && !list.contains("game59999"))
    }

    @Test func aStateFromBeforeThePolicyWasKeptStartsFromTheLastGoodCopy() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
        daemon.stop()
        // The state as the earlier version left it: no policy in force, the last good file kept.
        let store = try Store(path: daemon.paths.database)
        #expect(try store.appPolicyInForce() == nil, "nothing was set up: nothing kept")
        try store.saveGoodAppPolicy(
            "[[app]]\nname = \"game\"\npaths = [\"/usr/games/game\"]\nwindows = [\"07:00-20:00\"]\n", at: 1_795_000_000)
        try "[[app]]\nname = \"game\"\n".write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)  // broken
        try daemon.start()
        #expect(daemon.logText().contains("enforcing the last good policy instead (1 app"))
        #expect(row(try daemon.cli("apps", "list").stdout, "game")?.prefix(3) == ["game", "-", "no"], "in force")
        // Fixed: the file is merged in; game as the file has it now.
        try "[[app]]\nname = \"game\"\npaths = [\"/usr/games/game\"]\nwindows = [\"07:00-20:00\"]\nlimit_minutes = 30\n"
            .write(to: Self.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(try daemon.waitFor(5) { try daemon.cli("apps", "list").stdout.contains("30m daily") })
    }

    /// Someone with no rights floods the apps socket: they get their 4 places, and the household
    /// and root are served as before.
    @Test(.enabled(if: isRoot, "needs root: the flood must come from another user (setpriv)"))
    func aStrangerFloodingTheAppsSocketGetsFourPlacesAndNoOneElseWaits() throws {
        let daemon = SharedDaemon.unchanged  // the stranger changes nothing
        let script = """
            import json, socket, sys, time
            held, counts = [], {"ok": 0, "busy": 0}
            for _ in range(20):
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                try:
                    s.sendall(b'{"v":1,"op":{"watch":{}}}\\n')
                except BrokenPipeError:
                    pass  # turned away before the request went out: the reason is there to read
                try:
                    line = s.makefile().readline()
                except ConnectionResetError:
                    line = ""
                counts["ok" if '"ok":true' in line.replace(" ", "") else "busy"] += 1
                held.append(s)
            print(counts["ok"], counts["busy"], flush=True)
            time.sleep(3)
            """
        let output = daemon.root.appendingPathComponent("flood-\(UUID().uuidString.prefix(8)).out")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        flood.arguments = [
            "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/usr/bin/python3", "-c", script,
            daemon.paths.appsSocket,
        ]
        flood.standardOutput = try FileHandle(forWritingTo: output)
        try flood.run()
        defer {
            kill(flood.processIdentifier, SIGKILL)
            flood.waitUntilExit()
        }
        func printed() -> String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
        #expect(daemon.waitFor(10) { printed().hasSuffix("\n") }, "\(printed())")
        #expect(printed() == "4 16\n", "4 places for one stranger")
        // While the stranger holds them: root is answered, and so is a household watcher.
        #expect(daemon.answersStatus())
        let household = try daemon.connect()
        #expect(try household.send(.watch).ok)
        #expect(daemon.logText().contains("uid 65534 already has 4 connections open, the most one user may"))
    }
}

/// The words of the table row that starts with `first`.
func row(_ table: String, _ first: String) -> [String]? {
    table.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first { $0.first == first }
}

/// A setup as the page sends it.
enum AppSetupShape {
    static let game = AppSetup(name: "game", paths: ["/usr/games/game"], limits: ["mon": 60])
}
