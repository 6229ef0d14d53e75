import Foundation
import ReveilleProtocol
import Testing

/// Every way a user who wants more screen time would start a listed game outside its window
/// (docs/guide/apps.md, "What counts as the app"), as root with real fanotify: the game is known by its
/// content, whatever its path or name.
extension AppGuardSuites {
    @Suite struct AppRouteTests {
        /// The game (a unique copy of sleep) and a listed script, each in its own app with the
        /// 07:00-20:00 window; root is the user the policy limits, so that the daemon's test runs as
        /// it.
        static func daemon() throws -> (daemon: DaemonHarness, game: String, script: String) {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let game = try AppGuardSuites.AppGuardTests.installGame(in: daemon.root)
            let script = daemon.root.appendingPathComponent("games/quest.sh").path
            try "#!/bin/sh\nexit 0\n# reveille test \(UUID().uuidString)\n".write(
                toFile: script, atomically: true, encoding: .utf8)
            chmod(script, 0o755)
            try AppGuardSuites.AppGuardTests.writePolicy(
                """
                [[app]]
                name = "game"
                paths = ["\(game)"]
                windows = ["07:00-20:00"]
                users = ["root"]

                [[app]]
                name = "quest"
                paths = ["\(script)"]
                windows = ["07:00-20:00"]
                users = ["root"]
                """, to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 2 })
            return (daemon, game, script)
        }

        /// The dynamic loader this machine's programs name (x86-64, arm64 or armhf).
        static let loader = [
            "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-armhf.so.3",
        ].first { FileManager.default.fileExists(atPath: $0) }

        /// Runs a shell command line; its exit status (126 or 2 when the kernel refused it).
        static func run(_ line: String) throws -> Int32 {
            try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", line]).status
        }

        @Test(
            .enabled(
                if: isRoot, "needs root: fanotify permission events and mount need CAP_SYS_ADMIN (CI runs as root)"))
        func everyRouteToTheGameIsTheGameAndNoOtherProgramIs() throws {
            let (daemon, game, script) = try Self.daemon()
            let folder = daemon.root.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // A copy under another name on another file system (tmpfs).
            let shm = "/dev/shm/reveille-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: shm, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: shm) }
            let symlink = folder.appendingPathComponent("link").path
            let hardLink = folder.appendingPathComponent("hard").path
            let copy = folder.appendingPathComponent("game").path
            let renamed = shm + "/homework"
            let scriptLink = folder.appendingPathComponent("notes.sh").path
            try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: game)
            #expect(link(game, hardLink) == 0 && link(script, scriptLink) == 0)
            try FileManager.default.copyItem(atPath: game, toPath: copy)
            try FileManager.default.copyItem(atPath: game, toPath: renamed)
            let loader = try #require(Self.loader, "no dynamic loader at a known path")
            let routes = [
                ("direct", "\(game) 0"), ("symlink", "\(symlink) 0"), ("hard link", "\(hardLink) 0"),
                ("copy", "\(copy) 0"), ("renamed copy on tmpfs", "\(renamed) 0"),
                ("listed script", script), ("listed script through sh", "sh \(script)"),
                ("hard link of the script through sh", "sh \(scriptLink)"),
            ]
            for (route, line) in routes {
                #expect(try Self.run(line) != 0, "\(route): ran outside the window")
            }
            #expect(try Self.run("\(loader) \(game) 0") == 126, "the loader route")
            // The loader's refusal is the last one made: its line may come after the others' (a busy machine).
            #expect(daemon.waitFor(5) {
                let text = daemon.logText()
                return text.contains("app quest denied to root") && text.contains("the dynamic loader run directly")
            })
            let log = daemon.logText()
            #expect(log.contains("app game denied to root (pid"))
            #expect(log.contains("\(renamed)): outside its hours"))
            #expect(log.contains("\(scriptLink), read by its interpreter): outside its hours"))
            #expect(log.contains("the dynamic loader run directly"))

            // A copy changed by one byte is another program, and an unlisted one is not asked about:
            // same size, one byte different, not the game's content. It runs: the README says why,
            // and what the admin can do (noexec where users can write).
            var bytes = try Data(contentsOf: URL(fileURLWithPath: game))
            bytes[bytes.count - 1] ^= 0xFF
            let changed = daemon.root.appendingPathComponent("changed").path
            try bytes.write(to: URL(fileURLWithPath: changed))
            chmod(changed, 0o755)
            #expect(try Self.run("\(changed) 0") == 0)
            #expect(try Self.run("/usr/bin/sleep 0") == 0)
            #expect(try Self.run("\(game) 0") == 126)
            let status = try daemon.cli("status").stdout
            #expect(status.contains("apps: fanotify: 2 apps, 2 of 2 executables known by content; execs watched on "))

            // A file system mounted later (a USB stick) is watched too.
            let stick = daemon.root.appendingPathComponent("media/stick").path
            try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: true)
            let mounted = try runProcess(
                URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=16m", "stick", stick])
            try #require(mounted.status == 0, "mount -t tmpfs failed: \(mounted.stderr)")
            defer { _ = try? runProcess(URL(fileURLWithPath: "/bin/umount"), [stick]) }
            #expect(
                daemon.waitFor(3) {
                    daemon.logText().contains("app guard: execs watched on") && daemon.logText().contains(stick)
                })
            let stickCopy = stick + "/game"
            try FileManager.default.copyItem(atPath: game, toPath: stickCopy)
            #expect(try Self.run("\(stickCopy) 0") == 126)
            let doctor = try daemon.cli("doctor").stdout
            #expect(doctor.contains(stick))

            try daemon.setNow(instant("2026-11-24 07:30:00"))
            for (route, line) in routes {
                #expect(try Self.run(line) == 0, "\(route): refused inside the window")
            }
            // The loader run directly stays closed to the users the policy limits (what it would
            // load cannot be checked), and open to the others.
            let loaderRun = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "\(loader) \(game) 0"])
            #expect(
                loaderRun.status == 126,
                "\(loaderRun.stderr) \(daemon.logText().split(separator: "\n").filter { $0.contains("loader") })")
            // Another user is not limited here.
            let nobody = try runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=nobody", "--regid=nogroup", "--clear-groups", loader, "/usr/bin/true"])
            #expect(nobody.status == 0, "\(nobody.stderr)")
            #expect(!daemon.logText().contains("denied to nobody"))
            #expect(daemon.waitFor(2) { daemon.logText().contains("app quest started by root") })
            #expect(daemon.logText().contains("read by its interpreter): allowed"))
        }

        @Test(.enabled(if: isRoot, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
        func aListedFileChangedInPlaceOrReplacedIsStillTheApp() throws {
            let (daemon, game, _) = try Self.daemon()
            func reads() -> Int { daemon.logText().components(separatedBy: "2 of 2 listed executables").count - 1 }
            let initial = reads()
            // Its owner appends to it: another content, the same file (read again, too).
            let handle = try #require(FileHandle(forWritingAtPath: game))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("more".utf8))
            try handle.close()
            #expect(try Self.run("\(game) 0") == 126)
            #expect(daemon.waitFor(3) { reads() == initial + 1 })
            // A new version put in its place (a package upgrade renames one over it) is read again.
            var bytes = try Data(contentsOf: URL(fileURLWithPath: "/usr/bin/sleep"))
            bytes.append(Data("version 2 \(UUID().uuidString)".utf8))
            let staged = game + ".new"
            try bytes.write(to: URL(fileURLWithPath: staged))
            chmod(staged, 0o755)
            #expect(rename(staged, game) == 0)
            #expect(daemon.waitFor(3) { reads() == initial + 2 })
            #expect(daemon.logText().contains("reading the listed executables again"))
            #expect(try Self.run("\(game) 0") == 126)
            let copy = daemon.root.appendingPathComponent("copy-of-v2").path
            try FileManager.default.copyItem(atPath: game, toPath: copy)
            #expect(try Self.run("\(copy) 0") == 126)
            // Two upgrades in a row: the last one is what the guard knows.
            for version in 3...4 {
                var next = try Data(contentsOf: URL(fileURLWithPath: "/usr/bin/sleep"))
                next.append(Data("version \(version) \(UUID().uuidString)".utf8))
                try next.write(to: URL(fileURLWithPath: staged))
                chmod(staged, 0o755)
                #expect(rename(staged, game) == 0)
            }
            let latest = daemon.root.appendingPathComponent("copy-of-v4").path
            try FileManager.default.copyItem(atPath: game, toPath: latest)
            #expect(daemon.waitFor(3) { (try? Self.run("\(latest) 0")) == 126 }, "the last version is known")
        }
    }
}
