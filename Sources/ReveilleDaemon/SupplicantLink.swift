import CGcrypt
import Glibc
import ReveilleProtocol
import ReveilleSystem
import ReveilleWifi

/// Why the Wi-Fi could not be asked, in a person's words.
struct WifiFailure: Error, CustomStringConvertible {
    let code: ErrorReply.Code
    let description: String
}

/// One conversation with wpa_supplicant's control socket for one interface
/// (`/run/wpa_supplicant/wlan0`, group netdev): a datagram socket of the daemon's own, bound to an
/// address the kernel picks (abstract: nothing is left on disk), each request answered within two
/// seconds. Only `SupplicantCommand`s are sent. Used off the loop (`WifiRequests`), one at a time.
final class SupplicantLink {
    let interface: String
    private let fd: Int32
    /// Events that arrived while a reply was awaited, in order.
    private var events: [SupplicantEvent] = []

    /// The interface wpa_supplicant serves in `directory`: `wlan0` when it is there, else the first
    /// (P2P devices left out). nil when it serves none.
    static func interface(in directory: String) -> String? {
        let names = Folder.names(directory).filter { name in
            var info = stat()
            return !name.hasPrefix("p2p-dev-") && stat(directory + "/" + name, &info) == 0
                && info.st_mode & S_IFMT == S_IFSOCK
        }
        return names.contains("wlan0") ? "wlan0" : names.first
    }

    /// Whether the machine has a Wi-Fi adapter at all: an interface with a cfg80211 radio
    /// (`/sys/class/net/*/phy80211`, or `wireless` where the kernel keeps the old extensions).
    static func wirelessInterface(in classNet: String) -> String? {
        Folder.names(classNet).first { name in
            access(classNet + "/" + name + "/phy80211", F_OK) == 0 || access(classNet + "/" + name + "/wireless", F_OK) == 0
        }
    }

    /// Opens the link to wpa_supplicant for the machine's Wi-Fi, or says why there is none.
    static func open(paths: Paths) throws(WifiFailure) -> SupplicantLink {
        let directory = paths.system("/run/wpa_supplicant")
        guard let interface = interface(in: directory) else {
            if let adapter = wirelessInterface(in: paths.system("/sys/class/net")) {
                throw WifiFailure(code: .unavailable, description: WifiJoining.noService(adapter))
            }
            throw WifiFailure(code: .unavailable, description: WifiJoining.noAdapter)
        }
        return try SupplicantLink(socket: directory + "/" + interface, interface: interface)
    }

    init(socket path: String, interface: String) throws(WifiFailure) {
        self.interface = interface
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw WifiFailure(code: .internal, description: "no socket: \(String(cString: strerror(errno)))")
        }
        // Bound with no name: the kernel picks an abstract one, which wpa_supplicant answers.
        var own = sockaddr_un()
        own.sun_family = sa_family_t(AF_UNIX)
        var server = sockaddr_un()
        server.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: server.sun_path) else {
            Glibc.close(fd)
            throw WifiFailure(code: .internal, description: "\(path): the path is too long for a socket")
        }
        withUnsafeMutableBytes(of: &server.sun_path) { raw in raw.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &own) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sa_family_t>.size))
            }
        }
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            let error = errno
            Glibc.close(fd)
            if error == EACCES || error == EPERM {
                throw WifiFailure(
                    code: .unavailable,
                    description:
                        "Reveille may not use the Wi-Fi service (\(path)): its user is not in the netdev group; reinstall the package, or: sudo adduser reveille netdev"
                )
            }
            throw WifiFailure(
                code: .unavailable,
                description: WifiJoining.noService(interface) + " (\(String(cString: strerror(error))))")
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends `command` and returns its reply; an event that comes first is kept for `nextEvent`.
    func ask(_ command: SupplicantCommand) throws(WifiFailure) -> String {
        let line = Array(command.line.utf8)
        guard send(fd, line, line.count, 0) == line.count else {
            throw WifiFailure(
                code: .unavailable,
                description: "the Wi-Fi service stopped answering (\(String(cString: strerror(errno)))); try again")
        }
        let deadline = Monotonic.seconds() + 2
        while let message = receive(until: deadline) {
            if message.hasPrefix("<") {
                if let event = SupplicantEvent(message: message) { events.append(event) }
                continue
            }
            guard command.succeeded(message) else {
                throw WifiFailure(
                    code: .internal, description: "the Wi-Fi service refused \(command.verb): \(message.prefix(40))")
            }
            return message
        }
        throw WifiFailure(
            code: .unavailable, description: "the Wi-Fi service did not answer within 2 seconds; try again")
    }

    /// The next event wpa_supplicant sends before `deadline` (monotonic seconds); nil: none came.
    func nextEvent(until deadline: Double) -> SupplicantEvent? {
        if !events.isEmpty { return events.removeFirst() }
        while let message = receive(until: deadline) {
            if let event = SupplicantEvent(message: message) { return event }
        }
        return nil
    }

    private func receive(until deadline: Double) -> String? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let left = deadline - Monotonic.seconds()
            guard left > 0 else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, 60_000)) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return nil }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }
}

extension SupplicantCommand {
    /// The command's first word, for a message (never its values).
    var verb: String { String(line.prefix { $0 != " " }) }
}

/// The key wpa_supplicant is given for a passphrase (`rv_wpa_key`).
enum WifiKey {
    static func derive(passphrase: [UInt8], name: [UInt8]) -> [UInt8]? {
        var key = [UInt8](repeating: 0, count: 32)
        guard rv_wpa_key(passphrase, passphrase.count, name, name.count, &key) == 0 else { return nil }
        return key
    }
}
