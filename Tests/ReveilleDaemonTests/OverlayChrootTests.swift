import Foundation
import ReveilleProtocol
import Testing

/// The app guard on a shared machine (docs/guide/apps.md, "Whom it limits"): a chroot whose root is an
/// overlayfs, as a container or a newcomer's build box has, made by the test from this machine's
/// own `true`, `sh` and their libraries. On overlayfs the kernel reports each file an exec opens
/// twice (the overlay's, then the layer's), which must not be taken for the loader run directly.
extension AppGuardSuites {
    @Suite struct OverlayChrootTests {
        /// A lower folder holding `/bin/true`, `/bin/sh`, the game and the libraries they load,
        /// mounted as an overlay at `root`. Returns the unmount.
        static func overlayChroot(in folder: URL) throws -> (root: String, unmount: () -> Void) {
            // On a tmpfs of its own: an overlay's upper layer cannot be on an overlay (the test
            // may itself run in a chroot on one).
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let space = try runProcess(
                URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=64m", "tmpfs", folder.path])
            try #require(space.status == 0, "mount tmpfs: \(space.stderr)")
            let lower = folder.appendingPathComponent("lower")
            for program in ["/bin/true", "/bin/sh", "/usr/bin/sleep"] {
                let ldd = try runProcess(URL(fileURLWithPath: "/usr/bin/ldd"), [program])
                let files =
                    [program]
                    + ldd.stdout.split(separator: "\n").compactMap { line -> String? in
                        line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first { $0.hasPrefix("/") }.map(
                            String.init)
                    }
                for file in files {
                    let target = lower.appendingPathComponent(String(file.dropFirst()))
                    try FileManager.default.createDirectory(
                        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    if !FileManager.default.fileExists(atPath: target.path) {
                        try FileManager.default.copyItem(
                            atPath: URL(fileURLWithPath: file).resolvingSymlinksInPath().path, toPath: target.path)
                    }
                }
            }
            let (upper, work, root) = (
                folder.appendingPathComponent("upper"), folder.appendingPathComponent("work"),
                folder.appendingPathComponent("root")
            )
            for made in [upper, work, root] {
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            }
            let mounted = try runProcess(
                URL(fileURLWithPath: "/bin/mount"),
                [
                    "-t", "overlay", "overlay", "-o",
                    "lowerdir=\(lower.path),upperdir=\(upper.path),workdir=\(work.path)", root.path,
                ])
            try #require(mounted.status == 0, "mount: \(mounted.stderr)")
            return (
                root.path,
                {
                    _ = try? runProcess(URL(fileURLWithPath: "/bin/umount"), ["-l", root.path])
                    _ = try? runProcess(URL(fileURLWithPath: "/bin/umount"), ["-l", folder.path])
                }
            )
        }

        @Test(
            .enabled(if: isRoot, "needs root: fanotify, mount and chroot need CAP_SYS_ADMIN (CI runs as root)"),
            arguments: ["", "users = [\"root\"]\n"])
        func programsInAnOverlayChrootRunAndOnlyTheGameAndTheLoaderAreRefused(users: String) throws {
            let daemon = try DaemonHarness(now: instant("2026-11-23 21:00:00"))
            let (root, unmount) = try Self.overlayChroot(in: daemon.root.appendingPathComponent("chroot"))
            defer { unmount() }
            // The listed game is a unique copy of sleep, outside the chroot; a copy is placed inside.
            let game = try AppGuardTests.installGame(in: daemon.root)
            try FileManager.default.copyItem(atPath: game, toPath: root + "/game")
            try AppGuardTests.writePolicy(
                "[[app]]\nname = \"game\"\npaths = [\"\(game)\"]\nwindows = [\"07:00-20:00\"]\n\(users)", to: daemon)
            #expect(try daemon.waitFor(5) { try daemon.request(.appsStatus(user: "root")).apps?.count == 1 })
            func inChroot(_ arguments: [String]) throws -> Outcome {
                try runProcess(URL(fileURLWithPath: "/usr/sbin/chroot"), [root] + arguments)
            }
            // Every exec in it passes: 50 of them, through a shell too.
            for _ in 0..<25 { #expect(try inChroot(["/bin/true"]).status == 0) }
            #expect(
                try inChroot(["/bin/sh", "-c", "for i in 1 2 3 4 5; do /bin/true; done; echo ok"]).stdout == "ok\n")
            let loader = Self.loader
            let direct = try inChroot([loader, "/bin/true"])
            let copy = try inChroot(["/game", "0"])
            if users.isEmpty {
                // A policy for everyone does not limit root: even the loader and the game run.
                #expect(direct.status == 0, "\(direct)")
                #expect(copy.status == 0, "\(copy)")
            } else {
                // Root is named: the loader run directly and the copy of the game are refused.
                #expect(direct.status != 0, "\(direct)")
                #expect(copy.status != 0, "\(copy)")
                #expect(daemon.waitFor(2) { daemon.logText().contains("app game denied to root") })
            }
        }

        static var loader: String {
            ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-armhf.so.3"].first {
                FileManager.default.fileExists(atPath: $0)
            } ?? "/lib64/ld-linux-x86-64.so.2"
        }
    }
}
