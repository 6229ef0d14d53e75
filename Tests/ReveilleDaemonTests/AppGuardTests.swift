import Foundation
import ReveilleProtocol
import Synchronization
import Testing

/// The app guard's suites, one test at a time: with several guards in the kernel, the first to
/// refuse an exec ends it, and the others never hear of it, so one test's daemon refusing (say, a
/// loader run by root) would hide what another test's daemon answers.
@Suite(.serialized) enum AppGuardSuites {}

extension AppGuardSuites {
    /// The app policy end to end (docs/guide/apps.md, "App time windows and daily limits"): real fanotify as root, `reveille run` everywhere.
    @Suite struct AppGuardTests {
        /// A copy of /usr/bin/sleep in the daemon's root, made unique by a few bytes after its end (the
        /// guard knows an app by its content, and /usr/bin/sleep itself must stay unlisted): the app
        /// the policy lists.
        static func installGame(in daemonRoot: URL, name: String = "game", from program: String = "/usr/bin/sleep")
            throws -> String
        {
            let folder = daemonRoot.appendingPathComponent("games")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let game = folder.appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: game)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: program))
            bytes.append(Data("reveille test \(UUID().uuidString)".utf8))
            try bytes.write(to: URL(fileURLWithPath: game))
            chmod(game, 0o755)
            return game
        }

        /// The tests launch as root, whom a policy limits only when it names root.
        static func policy(_ game: String, windows: String = "[\"07:00-20:00\"]", limit: String? = nil) -> String {
            "[[app]]\nname = \"game\"\npaths = [\"\(game)\"]\nwindows = \(windows)\n"
                + (limit.map { "limit_minutes = \($0)\n" } ?? "") + "users = [\"root\"]\n"
        }

        /// A harness whose root already holds the game and a policy for it.
        static func daemon(now: String, windows: String = "[\"07:00-20:00\"]", limit: String? = nil) throws -> (
            DaemonHarness, String
        ) {
            // The game's path is known only once the root exists: start, write the policy, let it reload.
            let daemon = try DaemonHarness(now: instant(now))
            let game = try installGame(in: daemon.root)
            try writePolicy(policy(game, windows: windows, limit: limit), to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 1 })
            return (daemon, game)
        }

        static func writePolicy(_ text: String, to daemon: DaemonHarness) throws {
            try text.write(
                to: daemon.root.appendingPathComponent("etc/reveille/apps.toml"), atomically: true, encoding: .utf8)
        }

        /// Starts `path` with default signal handling and nothing blocked (the test runner blocks
        /// some signals, which children would inherit), and returns its pid.
        static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            var all = sigset_t()
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            guard posix_spawn(&pid, path, nil, &attributes, argv, environ) == 0 else {
                throw HarnessError("cannot start \(path)")
            }
            return pid
        }

        /// Runs `game 0` through a shell: exit 0 when it ran, 126 when the exec was refused.
        static func launch(_ game: String) throws -> Outcome {
            try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "\(game) 0"])
        }

        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func aPolicyForEveryoneLimitsThePeopleNotRootNorServices() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let game = try Self.installGame(in: daemon.root)
            // No `users`: the people who use the machine. Outside its window now.
            try Self.writePolicy(
                "[[app]]\nname = \"game\"\npaths = [\"\(game)\"]\nwindows = [\"07:00-20:00\"]\n", to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 1 })
            // Root, and a system account (daemon, uid 1): not limited, not even counted.
            #expect(try Self.launch(game).status == 0)
            let service = try runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=1", "--regid=1", "--clear-groups", game, "0"])
            #expect(service.status == 0, "\(service)")
            // A person (a login UID) is.
            let person = try runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=1000", "--regid=1000", "--clear-groups", game, "0"])
            #expect(person.status != 0, "\(person)")
            #expect(
                daemon.waitFor(2) {
                    daemon.logText().contains("app game denied to 1000") || daemon.logText().contains("denied to")
                })
            let status = try #require(try daemon.request(.appsStatus(user: "root")).apps?.first)
            #expect(status.allowed && status.limitMinutes == nil)
        }

        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func theKernelDeniesALaunchOutsideItsWindowAllowsItInsideAndFollowsPolicyEdits() throws {
            let (daemon, game) = try Self.daemon(now: "2026-11-23 21:00:00")
            #expect(
                try daemon.cli("status").stdout.contains(
                    "apps: fanotify: 1 app, 1 of 1 executable known by content; execs watched on "))
            let denied = try Self.launch(game)
            #expect(denied.status == 126)
            #expect(denied.stderr.contains("Operation not permitted"))
            #expect(daemon.waitFor(2) { daemon.logText().contains("app game denied to root") })
            #expect(daemon.logText().contains("outside its hours (07:00–20:00 today); allowed from Tue 07:00"))

            try daemon.setNow(instant("2026-11-24 07:30:00"))
            #expect(try Self.launch(game).status == 0)
            // An unlisted binary is not asked about.
            #expect(try runProcess(URL(fileURLWithPath: "/usr/bin/sleep"), ["0"]).status == 0)

            // Policy edits take effect at once, and a broken edit keeps the policy in force.
            try daemon.setNow(instant("2026-11-24 21:00:00"))
            #expect(try daemon.settle())
            #expect(try Self.launch(game).status == 126)
            try Self.writePolicy(Self.policy(game, windows: "[\"20:00-23:00\"]"), to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.cli("apps", "check", "game").status == 0 })
            #expect(try Self.launch(game).status == 0)

            try Self.writePolicy(Self.policy(game, windows: "[\"20:00-25:00\"]"), to: daemon)
            #expect(
                daemon.waitFor(5) {
                    daemon.logText().contains(
                        "apps.toml:4: app \"game\" windows: window \"20:00-25:00\": hour 25 must be 0-23; the policy in force is kept"
                    )
                })
            #expect(try Self.launch(game).status == 0)  // still the 20:00-23:00 policy

            // A policy file others may change is refused when the daemon runs as root.
            let file = daemon.root.appendingPathComponent("etc/reveille/apps.toml").path
            try Self.writePolicy(Self.policy(game, windows: "[\"07:00-08:00\"]"), to: daemon)
            chmod(file, 0o666)
            try Self.writePolicy(Self.policy(game, windows: "[\"07:00-08:00\"]") + "\n", to: daemon)
            chmod(file, 0o666)
            #expect(
                daemon.waitFor(5) {
                    daemon.logText().contains("refused: it must belong to root and be writable by root alone")
                })
        }

        /// An exec under way when the guard begins watching shows the guard only its second half,
        /// the loader, which alone reads as the loader run directly. Programs root starts while a
        /// policy naming root comes and goes (each time the guard begins watching anew) all run.
        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func programsStartingAsTheGuardBeginsToWatchAreNotTakenForTheLoaderRunDirectly() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let game = try Self.installGame(in: daemon.root)
            let stop = Atomic<Bool>(false)
            let counts = Mutex((ran: 0, refused: [String]()))
            let starters = (0..<2).map { _ in
                Thread {
                    while !stop.load(ordering: .relaxed) {
                        var outcome = "ran"
                        do {
                            let pid = try Self.spawn("/usr/bin/true", [])
                            var status: Int32 = 0
                            waitpid(pid, &status, 0)
                            if status != 0 { outcome = "exit status \(status)" }
                        } catch { outcome = "\(error)" }
                        counts.withLock { outcome == "ran" ? ($0.ran += 1) : $0.refused.append(outcome) }
                    }
                }
            }
            starters.forEach { $0.start() }
            for _ in 0..<30 {
                try Self.writePolicy(Self.policy(game), to: daemon)
                #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 1 })
                try Self.writePolicy("", to: daemon)
                #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.isEmpty ?? false })
            }
            stop.store(true, ordering: .relaxed)
            while starters.contains(where: { !$0.isFinished }) { usleep(10_000) }
            let (ran, refused) = counts.withLock { ($0.ran, $0.refused) }
            #expect(ran > 100, "too few starts to have met the guard beginning: \(ran)")
            #expect(refused.isEmpty, "\(refused.count) of \(ran + refused.count) refused: \(refused.prefix(3))")
            #expect(!daemon.logText().contains("the dynamic loader run directly"))
        }

        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func aRunningAppIsWarnedCountedAcrossClockStepsEndedAtItsLimitAndUsageSurvivesARestart() throws {
            let (daemon, game) = try Self.daemon(now: "2026-11-23 10:00:00", limit: "5")
            let hooks = daemon.root.appendingPathComponent("etc/reveille/hooks.d")
            try FileManager.default.createDirectory(at: hooks, withIntermediateDirectories: true)
            let record = daemon.root.appendingPathComponent("hook-ran").path
            try "#!/bin/sh\necho \"$REVEILLE_EVENT $REVEILLE_APP $REVEILLE_USER $REVEILLE_SECONDS_LEFT\" > \(record)\n"
                .write(
                    to: hooks.appendingPathComponent("10-record"), atomically: true, encoding: .utf8)
            chmod(hooks.appendingPathComponent("10-record").path, 0o755)
            let pid = try Self.spawn(game, ["600"])
            #expect(daemon.waitFor(3) { daemon.logText().contains("app game started by root") })
            #expect(daemon.waitFor(3) { daemon.logText().contains("app game of root: 5 min left, then it is ended") })
            #expect(
                daemon.waitFor(3) {
                    (try? String(contentsOfFile: record, encoding: .utf8))?.hasPrefix("app-warning game root ") == true
                })
            #expect(daemon.waitFor(3) { daemon.capturedBytes() > 44 })  // the chime

            // Usage is counted on CLOCK_BOOTTIME: network time stepping the wall clock three hours
            // forward while the app runs, then back, neither adds nor removes minutes.
            func used() throws -> Int? { try daemon.request(.appsStatus(user: "root")).apps?.first?.usedMinutes }
            try daemon.setNow(instant("2026-11-23 13:00:00"))
            #expect(try daemon.settle())
            #expect(try used() == 0, "a step is not three hours of play")
            #expect(kill(pid, 0) == 0, "and the app was not ended for it")
            try daemon.setNow(instant("2026-11-23 10:00:30"))
            #expect(try daemon.settle())
            #expect(try used() == 0)
            try daemon.advance(by: 125)  // two minutes of play do count
            #expect(try daemon.waitFor(3) { try used() == 2 })

            try daemon.advance(by: 3 * 60 + 5)  // five minutes of play in all
            var waitStatus: Int32 = 0
            #expect(daemon.waitFor(5) { waitpid(pid, &waitStatus, WNOHANG) == pid })
            #expect(waitStatus & 0x7F == SIGTERM, "ended by signal \(waitStatus & 0x7F)")
            #expect(daemon.logText().contains("must stop: today's 5 minutes are used up"))
            let denied = try Self.launch(game)
            #expect(denied.status == 126)

            daemon.stop()
            try daemon.start()
            let status = try #require(try daemon.request(.appsStatus(user: "root")).apps?.first)
            #expect(status.usedMinutes == 5 && !status.allowed)
            #expect(
                try daemon.cli("apps", "grant", "game", "--minutes", "10", "--user", "nobody").stdout
                    == "granted game 10 more minutes today to nobody (10 granted to nobody today in all)\n")
            #expect(try Self.launch(game).status == 126, "nobody's grant is not root's")
            let unknown = try daemon.cli("apps", "grant", "game", "--minutes", "10", "--user", "no-such-user")
            #expect(
                unknown.status != 0 && unknown.stderr == "reveille: --user no-such-user: no such user on this machine\n"
            )
            #expect(
                try daemon.cli("apps", "grant", "game", "--minutes", "10").stdout
                    == "granted game 10 more minutes today (10 granted today in all)\n")
            #expect(try Self.launch(game).status == 0)
        }

        @Test func theGateRunsAnAllowedAppAndRefusesTheOthers() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let game = try Self.installGame(in: daemon.root)
            // The gate's app is a different file than the guarded one, so that only the gate decides.
            let gated = try Self.installGame(in: daemon.root, name: "gated", from: "/usr/bin/echo")
            try Self.writePolicy(
                "[[app]]\nname = \"echo\"\npaths = [\"\(gated)\"]\nwindows = [\"07:00-20:00\"]\nusers = [\"root\"]\n",
                to: daemon)
            #expect(daemon.waitFor(5) { daemon.logText().contains("app policy: 1 app") })
            _ = game
            let refused = try daemon.cli("run", "echo", "--", "hello")
            #expect(refused.status == 126)
            #expect(refused.stderr == "reveille: echo: outside its hours (07:00–20:00 today); allowed from Tue 07:00\n")
            let check = try daemon.cli("apps", "check", "echo")
            #expect(
                check.status == 1
                    && check.stderr == "reveille: echo: outside its hours (07:00–20:00 today); allowed from Tue 07:00\n"
            )
            #expect(
                try daemon.cli("apps", "grant", "echo", "--minutes", "10").stdout
                    == "granted echo 10 more minutes today (10 granted today in all); a grant does not open a closed window: echo is outside its hours (07:00–20:00 today); allowed from Tue 07:00 (--open-now opens it now)\n"
            )
            // Opened now, outside its hours, for the minutes granted: a restart keeps it; then it closes.
            #expect(
                try daemon.cli("apps", "grant", "echo", "--minutes", "10", "--open-now").stdout
                    == "granted echo 10 more minutes today (20 granted today in all); echo is open now until 21:10, outside its hours if need be\n"
            )
            #expect(try daemon.cli("run", "echo", "--", "opened").stdout == "opened\n")
            #expect(
                try daemon.cli("apps", "check", "echo").stdout
                    == "echo: allowed until 21:10 (opened by an admin until 21:10)\n")
            daemon.stop()
            try daemon.start()
            #expect(try daemon.cli("apps", "check", "echo").status == 0)
            try daemon.setNow(instant("2026-11-23 21:10:00"))
            #expect(try daemon.cli("run", "echo", "--", "hello").status == 126)
            try daemon.setNow(instant("2026-11-24 08:00:00"))
            if isRoot {
                // As root the guard also sees the exec that `run` makes; both must agree.
                #expect(try daemon.cli("run", "echo", "--", "hello").stdout == "hello\n")
            } else {
                #expect(try daemon.cli("run", "echo", "--", "hello").stdout == "hello\n")
            }
            #expect(try daemon.cli("apps", "check", "echo").stdout == "echo: allowed until 20:00\n")
            let unknown = try daemon.cli("run", "chess")
            #expect(
                unknown.status == 126 && unknown.stderr == "reveille: no app \"chess\" in the policy; it lists echo\n")
            let table = try daemon.cli("apps", "status").stdout
            #expect(
                table
                    == "APP   NOW      USED   LEFT  WHY                  SETUP\necho  allowed  0 min  -     allowed until 20:00  no daily limit · 07:00–20:00\n"
            )
        }

        @Test func validateChecksAFileOffline() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "reveille-validate-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let good = folder.appendingPathComponent("good.toml").path
            try Self.policy("/usr/games/x").write(toFile: good, atomically: true, encoding: .utf8)
            let ok = try runProcess(Binaries.cli, ["apps", "validate", good])
            #expect(ok.status == 0 && ok.stdout == "\(good): ok, 1 app (game)\n")
            let bad = folder.appendingPathComponent("bad.toml").path
            try Self.policy("/usr/games/x", limit: "-5").write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try runProcess(Binaries.cli, ["apps", "validate", bad])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "reveille: \(bad):5: app \"game\" limit_minutes: -5 is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)\n"
            )
            // The two: 7 and 500 minutes.
            for minutes in ["7", "500"] {
                try Self.policy("/usr/games/x", limit: minutes).write(toFile: bad, atomically: true, encoding: .utf8)
                let outcome = try runProcess(Binaries.cli, ["apps", "validate", bad])
                #expect(outcome.status == 1)
                #expect(
                    outcome.stderr
                        == "reveille: \(bad):5: app \"game\" limit_minutes: \(minutes) is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)\n"
                )
            }

            // Every problem it can find, each with its line: not only the first.
            let several = folder.appendingPathComponent("several.toml").path
            try """
            [[apps]]
            name = "x"
            [[app]]
            name = "a"
            paths = ["rel"]
            [[app]]
            name = "b"
            paths = ["/g"]
            windows = ["20:00-25:00"]

            """.write(toFile: several, atomically: true, encoding: .utf8)
            let listed = try runProcess(Binaries.cli, ["apps", "validate", several])
            #expect(listed.status == 1)
            #expect(
                listed.stderr == """
                    reveille: \(several):1: apps: unknown setting; the file holds [[app]] tables
                    reveille: \(several):5: app "a" paths: "rel" is not an absolute path
                    reveille: \(several):9: app "b" windows: window "20:00-25:00": hour 25 must be 0-23
                    reveille: 3 problems; the daemon refuses the file until all are fixed

                    """)

            // A policy that names root or a service account is valid, with a warning for each.
            let wide = folder.appendingPathComponent("wide.toml").path
            try """
            [[app]]
            name = "game"
            paths = ["/usr/games/x"]
            limit_minutes = 30
            users = ["root", "daemon", "no-such-user-here"]

            """.write(toFile: wide, atomically: true, encoding: .utf8)
            let warned = try runProcess(Binaries.cli, ["apps", "validate", wide])
            #expect(warned.status == 0 && warned.stdout == "\(wide): ok, 1 app (game)\n", "\(warned)")
            let warnings = warned.stderr.split(separator: "\n")
            #expect(warnings.count == 3, "\(warned)")
            #expect(
                warnings.first?.hasPrefix(
                    "reveille: warning: app game: users names root, root: its programs are limited too") == true)
            #expect(warnings.contains { $0.contains("names daemon, a system account (UID 1, below UID_MIN ") })
            #expect(warnings.contains { $0.contains("names no-such-user-here, not a user of this machine") })

            // The daemon's ownership check too: as root it refuses a file others may write, so validate does.
            if isRoot {
                chmod(good, 0o666)
                let writable = try runProcess(Binaries.cli, ["apps", "validate", good])
                #expect(writable.status == 1)
                #expect(
                    writable.stderr
                        == "reveille: \(good): refused: it must belong to root and be writable by root alone (sudo chown root: \(good); sudo chmod 644 \(good))\n"
                )
            }
        }

        /// Issue 13, "never fail open": a typo in apps.toml found at start (after a reboot, say) must not
        /// lift every limit. The copy kept when the file last loaded is enforced, and the refusal shows.
        /// Before any file ever loaded, a broken one limits nothing, and says so.
        @Test func aBrokenPolicyAtStartEnforcesTheLastGoodOneNeverNothing() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"), apps: "[[app]\nname = \"game\"\n")
            #expect(daemon.logText().contains("no policy ever loaded here, so no app is limited until apps.toml loads"))
            let never = try daemon.cli("status").stdout
            #expect(never.contains("APPS.TOML REJECTED: "))
            #expect(never.contains("; no app is limited until it loads"))

            let game = try Self.installGame(in: daemon.root)
            try Self.writePolicy(Self.policy(game), to: daemon)
            #expect(
                try daemon.waitFor(5) { try daemon.cli("apps", "check", "game").stderr.contains("outside its hours") })
            daemon.stop()
            let broken = "[[app]]\nname = \"game\"\npaths = [\"/games/game\"]\nwindows = [\"07:00-20:00\"\n"
            try Self.writePolicy(broken, to: daemon)
            try daemon.start()

            #expect(
                daemon.logText().contains("; enforcing the last good policy instead (1 app, as loaded 2026-11-23 21:0")
            )
            let check = try daemon.cli("apps", "check", "game")
            #expect(check.status == 1, "still limited: \(check.stdout)\(check.stderr)")
            #expect(check.stderr == "reveille: game: outside its hours (07:00–20:00 today); allowed from Tue 07:00\n")
            let status = try daemon.cli("status").stdout
            #expect(status.contains("\nAPPS.TOML REJECTED: \(daemon.paths.configDirectory)/apps.toml:"))
            #expect(status.contains("; the last good policy is enforced (1 app, as loaded 2026-11-23 21:0"))
            let apps = try daemon.cli("apps", "status")
            #expect(apps.stdout.hasPrefix("APPS.TOML REJECTED: "), "\(apps.stdout)\(apps.stderr)")
            #expect(try daemon.cli("doctor").stdout.contains("FAIL  app policy: apps.toml refused: "))

            // Corrected, it loads by itself and the refusal goes away.
            try Self.writePolicy(Self.policy(game, windows: "[\"20:00-23:00\"]"), to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.cli("apps", "check", "game").status == 0 })
            #expect(try !daemon.cli("status").stdout.contains("REJECTED"))

            // This one limits root (the tests run as root): doctor says so.
            let doctor = try daemon.cli("doctor").stdout
            #expect(
                doctor.contains("warn  app policy: app game: users names root, root: its programs are limited too"),
                "\(doctor)")
        }

        /// The app picker (docs/guide/apps.md, "Setting up apps"): the installed applications are read from
        /// `.desktop` files (the test's own, under the daemon's root), each with the program the
        /// guard sees; an app added from the list is that program, and the kernel refuses it.
        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func anAppPickedFromTheInstalledOnesIsTheProgramTheGuardRefuses() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let root = daemon.root.path
            func write(_ path: String, _ text: String, executable: Bool = false) throws {
                let url = URL(fileURLWithPath: root + path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: true, encoding: .utf8)
                if executable { chmod(url.path, 0o755) }
            }
            let game = try Self.installGame(in: daemon.root.appendingPathComponent("usr"), name: "tuxgame")
            #expect(game == root + "/usr/games/tuxgame")
            let entry = "[Desktop Entry]\nType=Application\n"
            try write(
                "/usr/share/applications/tux.desktop",
                entry + "Name=Tux Racer\nName[de]=Tux-Rennen\nExec=tuxgame %U\nIcon=tux\n")
            try write("/usr/share/applications/hidden.desktop", entry + "Name=Helper\nExec=tuxgame\nNoDisplay=true\n")
            try write("/usr/games/launcher", "#!/bin/sh\nexec tuxgame \"$@\"\n", executable: true)
            try write("/usr/share/applications/launcher.desktop", entry + "Name=Launcher\nExec=launcher\n")
            try write(
                "/var/lib/flatpak/exports/share/applications/org.example.Chess.desktop",
                entry
                    + "Name=Chess\nExec=/usr/bin/flatpak run --branch=stable --arch=x86_64 org.example.Chess @@u %U @@\n"
            )
            try write(
                "/var/lib/flatpak/app/org.example.Chess/current/active/metadata", "[Application]\ncommand=chess\n")
            try write(
                "/var/lib/flatpak/app/org.example.Chess/current/active/files/bin/chess", "#!/bin/sh\n", executable: true
            )
            try write(
                "/var/lib/snapd/desktop/applications/mines_mines.desktop", entry + "Name=Mines\nExec=/snap/bin/mines\n")

            let listed = try daemon.cli("apps", "installed")
            #expect(listed.status == 0, "\(listed)")
            #expect(row(listed.stdout, "tux.desktop") == ["tux.desktop", "Tux", "Racer", game, "-"])
            #expect(
                row(listed.stdout, "org.example.Chess.desktop")?.dropFirst(2).first
                    == root + "/var/lib/flatpak/app/org.example.Chess/current/active/files/bin/chess")
            #expect(row(listed.stdout, "mines_mines.desktop")?.suffix(2) == ["-", "-"])
            #expect(!listed.stdout.contains("hidden.desktop"))
            #expect(
                listed.stdout.contains(
                    "mines_mines.desktop: a snap: its program lies in the snap's image under /snap/mines/current/"))
            #expect(listed.stdout.contains("launcher.desktop: a launcher script: the guard knows it by its content"))

            let added = try daemon.cli(
                "apps", "add", "tux", "--installed", "tux", "--user", "root", "--hours", "07:00-20:00")
            #expect(added.status == 0, "\(added)")
            #expect(try daemon.request(.appList).appsReply?.policy?.apps.first?.paths == [game])
            #expect(row(try daemon.cli("apps", "installed").stdout, "tux.desktop")?.last == "tux")
            let snap = try daemon.cli("apps", "add", "mines", "--installed", "mines_mines")
            #expect(
                snap.status == 1 && snap.stderr.contains("Mines (mines_mines.desktop) cannot be limited on its own"))
            #expect(try daemon.cli("apps", "add", "x", "--installed", "nothing").status == 64)
            // Outside its hours: the kernel refuses the program picked.
            #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 1 })
            #expect(try Self.launch(game).status == 126)
        }
    }
}
