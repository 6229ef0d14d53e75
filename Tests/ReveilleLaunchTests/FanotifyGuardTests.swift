import Foundation
import Logging
import ReveilleApps
import ReveilleCore
import ReveilleLaunch
import Testing

/// The guard's own thread with real fanotify, as root.
@Suite struct FanotifyGuardTests {
    @Test(.enabled(if: getuid() == 0, "needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)"))
    func aStuckAnswerIsNoticedByItsTimerAndTheExecWaitsForIt() throws {
        let guardian = try FanotifyGuard(logger: Logger(label: "test"), stallSeconds: 0.2)
        defer { guardian.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("guard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = folder.appendingPathComponent("slow").path
        try FileManager.default.copyItem(atPath: "/usr/bin/true", toPath: program)
        let target = try #require(try ExecutableFile.open(program).withRaw { ExecutableFile.stamp($0)?.key })
        let mount = try #require(Mounts.mount(of: folder.path, in: Mounts.read()))
        #expect(guardian.watchExecs(on: [mount]).isEmpty)
        #expect(guardian.watchedFilesystems == [mount])
        // Every other exec is answered at once; this one after 0.6 s.
        guardian.start { event in
            if ExecutableFile.stamp(event.fd)?.key == target { usleep(600_000) }
            return true
        }
        let started = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        // Starting it returns once the exec is answered: from another thread.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? process.run()
            process.waitUntilExit()
            done.signal()
        }
        var timer = pollfd(fd: guardian.stallTimer, events: Int16(POLLIN), revents: 0)
        #expect(poll(&timer, 1, 2000) == 1, "the stall timer never fired")
        #expect(guardian.answeringFor() >= 0.2)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(process.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) >= 0.5, "the exec waited for the answer")
        // Answered: the timer is disarmed and the stuck exec is no longer being answered. The mark
        // covers the whole file system, so another test's exec may be in hand at this instant
        // (answered at once: a few ms at most, never the stall time).
        var expirations: UInt64 = 0
        _ = read(guardian.stallTimer, &expirations, 8)
        #expect(guardian.answeringFor() < 0.1)
        timer.revents = 0
        #expect(poll(&timer, 1, 300) == 0)
    }
}
