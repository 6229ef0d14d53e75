import CTestSupport
import Foundation
import ReveilleProtocol
import Testing

/// A session bus of the test's own (`dbus-daemon`), open to every user, with the stand-in
/// notification service of `notifications.c` on it.
final class SessionBus {
    let folder: URL
    let address: String
    private let process: Process
    let stub: OpaquePointer

    init(tapAsk: Bool) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        let socket = folder.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        // A session bus every user may use: the notifier runs as another user than the test.
        let config = folder.appendingPathComponent("session.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--nopidfile"]
        try process.run()
        let deadline = Date().addingTimeInterval(5)
        while access(socket, F_OK) != 0, Date() < deadline { usleep(20_000) }
        chmod(socket, 0o777)
        guard let stub = RVT_notifications_start(address, tapAsk ? 1 : 0) else {
            kill(process.processIdentifier, SIGKILL)
            throw HarnessError("the stand-in notification service could not start on \(address)")
        }
        self.stub = stub
    }

    /// What was shown so far, as "summary|body|actions;".
    var shown: [String] {
        (0..<RVT_notifications_count(stub)).map { index in
            var text = [CChar](repeating: 0, count: 1024)
            RVT_notifications_get(stub, index, &text, text.count)
            return String(cString: text)
        }
    }

    func stop() {
        RVT_notifications_stop(stub)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}

extension AppGuardSuites {
    /// `reveille-notify` as a child, against a real session bus (docs/guide/apps.md, "A child's side").
    @Suite struct NotifierTests {
        static let nobody = 65_534

        @Test(
            .enabled(
                if: isRoot, "needs root: fanotify sees the game start, and the child runs as another user (setpriv)"),
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"), "needs dbus-daemon"))
        func theChildHearsFifteenFiveAndOneMinuteAsksFromANoticeAndHearsTheAnswer() throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 16:00:00"))
            // A hook that keeps what the chime hook is told.
            let hooks = daemon.root.appendingPathComponent("etc/reveille/hooks.d")
            try FileManager.default.createDirectory(at: hooks, withIntermediateDirectories: true)
            let told = daemon.root.appendingPathComponent("chime-hook.out")
            try "#!/bin/sh\n[ \"$REVEILLE_EVENT\" = chime ] && env | grep '^REVEILLE_' | sort > \(told.path)\nexit 0\n"
                .write(to: hooks.appendingPathComponent("phone"), atomically: true, encoding: .utf8)
            chmod(hooks.appendingPathComponent("phone").path, 0o755)
            let game = try AppGuardTests.installGame(in: daemon.root)
            try AppGuardTests.writePolicy(
                "[[app]]\nname = \"game\"\npaths = [\"\(game)\"]\nwindows = [\"15:00-20:00\"]\nlimit_minutes = 20\nusers = [\"nobody\"]\n",
                to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.request(.appList).appsReply?.policy?.apps.count == 1 })
            let bus = try SessionBus(tapAsk: true)
            defer { bus.stop() }

            let log = daemon.root.appendingPathComponent("notify.log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let notifier = Process()
            notifier.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            notifier.arguments = [
                "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", Binaries.notifier.path,
            ]
            notifier.environment = ["REVEILLE_ROOT": daemon.root.path, "DBUS_SESSION_BUS_ADDRESS": bus.address]
            notifier.standardError = try FileHandle(forWritingTo: log)
            try notifier.run()
            defer {
                // SIGKILL: a child of the test runner inherits its blocked signals, SIGTERM among them.
                kill(notifier.processIdentifier, SIGKILL)
                notifier.waitUntilExit()
            }
            func notes() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
            #expect(
                daemon.waitFor(5) { notes().contains("following \(daemon.paths.appsSocket) for nobody") }, "\(notes())")

            // A reminder for the child: on their desktop, with its line; the hook names them;
            // "Again in 10 minutes", tapped on the notice, asks the daemon as the child.
            let piano = try daemon.cli(
                "reminder", "add", "Practice piano", "--at", "16:01", "--days", "daily", "--for", "nobody", "--body",
                "Scales first")
            #expect(piano.status == 0, "\(piano)")
            try daemon.advance(by: 61)
            #expect(
                daemon.waitFor(5) {
                    bus.shown.contains("Practice piano|Scales first|again;Again in 10 minutes;")
                }, "\(bus.shown)")
            #expect(
                daemon.waitFor(5) {
                    daemon.logText().contains("reminder \"Practice piano\" (reminder #1) chimes again at ")
                })
            #expect(
                daemon.waitFor(5) {
                    (try? String(contentsOf: told, encoding: .utf8))?.contains("REVEILLE_TEXT=Practice piano") == true
                })
            let hook = (try? String(contentsOf: told, encoding: .utf8)) ?? ""
            for line in [
                "REVEILLE_EVENT=chime", "REVEILLE_PERSON=nobody", "REVEILLE_BODY=Scales first",
                "REVEILLE_ORIGIN=reminder #1",
            ] {
                #expect(hook.contains(line + "\n"), "\(hook)")
            }

            // The child starts the game: the guard follows it as nobody's.
            let player = try AppGuardTests.spawn(
                "/usr/bin/setpriv",
                ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", game, "3000"])
            defer {
                kill(player, SIGKILL)
                var status: Int32 = 0
                waitpid(player, &status, 0)
            }
            #expect(daemon.waitFor(5) { daemon.logText().contains("app game started by nobody") })

            try daemon.advance(by: 5 * 60 + 2)  // 15 min left
            #expect(daemon.waitFor(5) { bus.shown.contains { $0.hasPrefix("game: 15 minutes left|") } }, "\(bus.shown)")
            let fifteen = bus.shown.first { $0.hasPrefix("game: 15 minutes left|") } ?? ""
            #expect(fifteen.hasSuffix("|ask;Ask for 30 more minutes;"))
            #expect(fifteen.contains("It is ended then; allowed (15 of 20 min left today). Save your work."))
            // The stand-in tapped "ask": the request reaches the daemon as nobody's.
            #expect(
                try daemon.waitFor(5) {
                    try daemon.request(.appRequests).appsReply?.requests?.first?.user == "nobody"
                })
            #expect(daemon.waitFor(5) { bus.shown.contains { $0.hasPrefix("Asked for 30 more minutes of game|") } })

            try daemon.advance(by: 10 * 60)  // 5 min left
            #expect(daemon.waitFor(5) { bus.shown.contains { $0.hasPrefix("game: 5 minutes left|") } }, "\(bus.shown)")
            // 16:11 has passed: the piano reminder came again.
            #expect(
                daemon.waitFor(5) { bus.shown.filter { $0.hasPrefix("Practice piano|Scales first|") }.count == 2 },
                "\(bus.shown)")
            try daemon.advance(by: 4 * 60)  // 1 min left
            #expect(daemon.waitFor(5) { bus.shown.contains { $0.hasPrefix("game: 1 minute left|") } }, "\(bus.shown)")

            // An admin approves from the CLI: the child hears it.
            #expect(try daemon.cli("apps", "approve", "1").status == 0)
            #expect(
                daemon.waitFor(5) {
                    bus.shown.contains {
                        $0.hasPrefix("30 more minutes of game: approved|You have 30 more minutes of game today.")
                    }
                }, "\(bus.shown)")

            // The daemon restarts (an upgrade): the notifier finds it again by itself.
            daemon.stop()
            try daemon.start()
            #expect(daemon.waitFor(10) { notes().contains("reveilled answers again") }, "\(notes())")

            // Outside its hours, a start is refused, and the child is told why and until when.
            try daemon.setNow(instant("2026-11-23 21:00:00"))
            let late = try runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", game, "0"])
            #expect(late.status != 0)
            #expect(
                daemon.waitFor(5) {
                    bus.shown.contains {
                        $0 == "game cannot start now|outside its hours (15:00–20:00 today); allowed from Tue 15:00|"
                    }
                }, "\(bus.shown)")
            // Only nobody's own: nothing about anyone else was shown.
            #expect(bus.shown.allSatisfy { !$0.contains("root") })
        }
    }
}
