import Foundation
import Glibc
import Testing

/// The daemon's sd_notify messages, received on a notify socket the test plays systemd with.
@Suite struct ServiceManagerTests {
    /// A Unix datagram socket bound at `path`, as systemd's $NOTIFY_SOCKET.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard fd >= 0, bound == 0 else { throw HarnessError("cannot bind \(path): \(errno)") }
        }

        deinit { close(fd) }

        /// The messages that arrive within `seconds`, until `enough` says stop.
        func receive(for seconds: Double, until enough: ([String]) -> Bool) -> [String] {
            var messages: [String] = []
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline, !enough(messages) {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 { messages.append(String(decoding: buffer[0..<count], as: UTF8.self)) }
            }
            return messages
        }
    }

    /// READY, then the watchdog's pings; `systemctl reload` (SIGHUP): RELOADING, a start again in
    /// place, READY, and never a STOPPING (systemd would stop the service and kill the new start);
    /// at the stop, STOPPING.
    @Test func readyWatchdogPingsAReloadAndStopping() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-notify-\(UUID().uuidString.prefix(8))"
        ).path
        let socket = try NotifySocket(path: path)
        defer { unlink(path) }
        let daemon = try DaemonHarness(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"])
        let messages = socket.receive(for: 5) { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 }
        let ready = try #require(messages.first)
        #expect(ready == "READY=1\nSTATUS=serving \(daemon.paths.socket)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 2, "\(messages)")
        #expect(daemon.logText().contains("systemd watchdog: 2 s; pinging every 1 s"))

        kill(daemon.process.processIdentifier, SIGHUP)
        let reload = socket.receive(for: 5) { $0.contains { $0.hasPrefix("READY=1") } }
            .filter { $0 != "WATCHDOG=1" }
        #expect(reload.first?.hasPrefix("RELOADING=1") == true, "\(reload)")
        #expect(reload.last?.hasPrefix("READY=1") == true, "\(reload)")
        #expect(!reload.contains { $0.hasPrefix("STOPPING=1") }, "\(reload)")
        #expect(daemon.answersStatus())

        daemon.stop()
        #expect(
            socket.receive(for: 3) { $0.contains { $0.hasPrefix("STOPPING=1") } }.contains(
                "STOPPING=1\nSTATUS=stopping"))
    }

    @Test func withoutSystemdNothingIsSentAndNoWatchdogRuns() throws {
        let daemon = SharedDaemon.unchanged
        #expect(!daemon.logText().contains("systemd watchdog"))
    }
}
