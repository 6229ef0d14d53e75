import Glibc
import Testing

@testable import ReveilleWeb

/// The kiosk is one user's browser: the owner of a loopback connection's other end, from the
/// kernel's tables of sockets.
@Suite struct LoopbackPeerTests {
    static let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 1001 1 0000000000000000 100 0 0 10 0
           1: 0100007F:D2C4 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0000000000000000 20 4 30 10 -1
           2: 0100007F:1F90 0100007F:D2C4 01 00000000:00000000 00:00000000 00000000   998        0 1003 1 0000000000000000 20 4 30 10 -1
           3: 0100007F:D2C6 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 1004 1 0000000000000000 20 4 30 10 -1
        """
    static let table6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0000000000000000FFFF00000100007F:D2C8 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000   1002        0 1005 1
           1: 00000000000000000000000001000000:D2CA 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000   1003        0 1006 1
        """

    static func end(_ address: String, _ port: Int) -> LoopbackPeer.End { LoopbackPeer.End(address, port: port)! }

    @Test func theBrowsersSideNamesItsOwnerNotTheServersSide() {
        let server = Self.end("127.0.0.1", 8080)
        #expect(LoopbackPeer.owner(in: Self.table, local: Self.end("127.0.0.1", 53956), remote: server) == 1000)
        #expect(LoopbackPeer.owner(in: Self.table, local: Self.end("127.0.0.1", 53958), remote: server) == 1001)
        // The server's own side of the same connection is not the browser's.
        #expect(LoopbackPeer.owner(in: Self.table, local: server, remote: Self.end("127.0.0.1", 53956)) == 998)
        #expect(LoopbackPeer.owner(in: Self.table, local: Self.end("127.0.0.1", 1), remote: server) == nil)
    }

    @Test func ipv6AndIPv4MappedIntoIt() {
        // A server on `::` sees an IPv4 browser as ::ffff:127.0.0.1.
        #expect(
            LoopbackPeer.owner(
                in: Self.table6, local: Self.end("::ffff:127.0.0.1", 53960), remote: Self.end("127.0.0.1", 8080))
                == 1002)
        #expect(LoopbackPeer.owner(in: Self.table6, local: Self.end("::1", 53962), remote: Self.end("::1", 8080)) == 1003)
        #expect(LoopbackPeer.End("not an address", port: 1) == nil && LoopbackPeer.End("::1", port: 70_000) == nil)
    }

    @Test func aRealLoopbackConnectionIsFoundAsThisProcesssUser() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        #expect(connected == 0)
        var mine = sockaddr_in()
        var mineLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &mine) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &mineLength) }
        }
        let browser = LoopbackPeer.End("127.0.0.1", port: Int(UInt16(bigEndian: mine.sin_port)))!
        let server = LoopbackPeer.End("127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)))!
        #expect(LoopbackPeer.owner(browser: browser, server: server) == getuid())
        // Asked of the kernel for the one socket (sock_diag), no table read; a port no socket has
        // is no one's; the same ends as an IPv6 socket's mapped addresses are looked up too.
        #expect(LoopbackPeer.asked(browser: browser, server: server) == .owner(getuid()))
        let nobody = LoopbackPeer.End("127.0.0.1", port: Int(browser.port == 65535 ? 1 : browser.port + 1))!
        #expect(LoopbackPeer.asked(browser: nobody, server: server) == .none)
        #expect(LoopbackPeer.owner(browser: nobody, server: server) == nil)
    }
}
