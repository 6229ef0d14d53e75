import CWebShims
import Glibc

/// Whose browser is at the other end of a loopback connection: the kernel's tables of TCP
/// sockets (`/proc/net/tcp` and `/proc/net/tcp6`) name each socket's owner. The peer's socket is
/// the one whose local end is the connection's remote end and whose remote end is its local one.
/// Only the kiosk's own user gets the kiosk's rights (`WebClient`): any other local user, a child
/// with a login among them, is a browser like any other, and pairs.
public enum LoopbackPeer {
    /// One end of a TCP connection: an address (4 bytes, or 16 for IPv6; an IPv4 address mapped
    /// into IPv6 is kept as its 4 bytes) and a port.
    public struct End: Equatable, Sendable {
        public var address: [UInt8]
        public var port: UInt16

        public init(address: [UInt8], port: UInt16) {
            let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
            self.address = address.count == 16 && Array(address.prefix(12)) == mapped ? Array(address.suffix(4)) : address
            self.port = port
        }

        /// From an address as text (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) and a port.
        public init?(_ text: String, port: Int) {
            guard (0...65535).contains(port) else { return nil }
            if text.contains(":") {
                var bytes = [UInt8](repeating: 0, count: 16)
                guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
                self.init(address: bytes, port: UInt16(port))
            } else {
                var bytes = [UInt8](repeating: 0, count: 4)
                guard inet_pton(AF_INET, text, &bytes) == 1 else { return nil }
                self.init(address: bytes, port: UInt16(port))
            }
        }
    }

    /// The owner of the socket whose ends are `local` and `remote` in a table as the kernel
    /// writes it (`sl local_address rem_address st ... uid ...`); nil when there is none.
    public static func owner(in table: String, local: End, remote: End) -> uid_t? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, let here = end(fields[1]), here == local, let there = end(fields[2]),
                there == remote, let uid = uid_t(fields[7])
            else { continue }
            return uid
        }
        return nil
    }

    /// `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6): each 32-bit word of the
    /// address as the kernel holds it in memory, printed as a number (so, on a little-endian
    /// machine, its bytes backwards); the port as a number.
    static func end(_ field: Substring) -> End? {
        let parts = field.split(separator: ":")
        guard parts.count == 2, parts[0].count == 8 || parts[0].count == 32, let port = UInt16(parts[1], radix: 16)
        else { return nil }
        var bytes: [UInt8] = []
        var index = parts[0].startIndex
        while index < parts[0].endIndex {
            let next = parts[0].index(index, offsetBy: 8)
            guard let word = UInt32(parts[0][index..<next], radix: 16) else { return nil }
            // The word's bytes in memory order.
            withUnsafeBytes(of: word) { bytes += $0 }
            index = next
        }
        return End(address: bytes, port: port)
    }

    /// The uid owning the browser's side of the connection from `browser` to `server`: asked of
    /// the kernel for that one socket (sock_diag), or, where the kernel will not say, looked up in
    /// both tables; nil when it cannot be found (then no kiosk rights). The tables cost their
    /// length: 9,500 connections held by other local programs made every page 1.8 s slower.
    public static func owner(browser: End, server: End) -> uid_t? {
        switch asked(browser: browser, server: server) {
        case .owner(let uid): return uid
        case .none: return nil
        case .unanswered:
            for path in ["/proc/net/tcp", "/proc/net/tcp6"] {
                guard let table = read(path), let uid = owner(in: table, local: browser, remote: server) else {
                    continue
                }
                return uid
            }
            return nil
        }
    }

    enum Answer: Equatable {
        case owner(uid_t)
        /// The kernel has no such socket.
        case none
        /// The kernel could not be asked (no sock_diag for TCP here).
        case unanswered
    }

    /// The kernel's answer for the browser's socket: an IPv4 socket, or an IPv6 one whose ends are
    /// IPv4 addresses mapped into IPv6 (a browser that connected over a dual-stack socket).
    static func asked(browser: End, server: End) -> Answer {
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        var tries: [(Int32, [UInt8], [UInt8])] = []
        if browser.address.count == 4, server.address.count == 4 {
            tries = [(AF_INET, browser.address, server.address), (AF_INET6, mapped + browser.address, mapped + server.address)]
        } else if browser.address.count == 16, server.address.count == 16 {
            tries = [(AF_INET6, browser.address, server.address)]
        }
        var notFound = false
        for (family, local, remote) in tries {
            var uid: UInt32 = 0
            let result = RV_tcp_socket_owner(family, local, browser.port, remote, server.port, &uid)
            if result == 0 { return .owner(uid_t(uid)) }
            if result == -ENOENT { notFound = true }
        }
        guard notFound else { return .unanswered }
        // A kernel without TCP's sock_diag says "no such socket" too: it is believed only when it
        // finds this server's own end of the connection.
        for (family, local, remote) in tries {
            var uid: UInt32 = 0
            if RV_tcp_socket_owner(family, remote, server.port, local, browser.port, &uid) == 0 { return .none }
        }
        return .unanswered
    }

    /// A table from procfs, at most 4 MiB (a clock has a few dozen sockets).
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < 4 << 20 {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            out += buffer.prefix(count)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
