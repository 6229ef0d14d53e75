import CReveilleShims
import Glibc
import ReveilleProtocol
import ReveilleSystem

/// Who is at the other end of a connection, from the kernel (SO_PEERCRED, SO_PEERGROUPS).
public struct Peer: Sendable, CustomStringConvertible {
    public let pid: pid_t
    public let uid: uid_t
    /// Primary group first, then the supplementary groups.
    public let groups: [gid_t]

    /// Reads the credentials of the peer of the connected socket `fd`.
    static func of(socket fd: Int32) throws(SystemCallError) -> Peer {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        try systemCall("getsockopt(SO_PEERCRED)", "control socket") { RV_peer_credentials(fd, &pid, &uid, &gid) }
        var groups = [gid_t](repeating: 0, count: 64)
        var count = RV_peer_groups(fd, &groups, Int32(groups.count))
        if count > groups.count {
            groups = [gid_t](repeating: 0, count: Int(count))
            count = RV_peer_groups(fd, &groups, Int32(groups.count))
        }
        return Peer(pid: pid, uid: uid, groups: [gid] + groups.prefix(max(0, Int(count))))
    }

    public var description: String { "pid \(pid) uid \(uid)" }
}

/// Decides a peer's rights (docs/guide/rights.md, "Who may do what"): root and the daemon's own user can do everything; the admin
/// group manages; the socket group reads, snoozes and answers.
public struct PeerAccess: Sendable {
    public struct Group: Sendable {
        public let name: String
        /// nil when no such group exists on this system.
        public let id: gid_t?

        /// Looks the group up by name (getgrnam).
        public init(named name: String) {
            self.name = name
            self.id = getgrnam(name).map { $0.pointee.gr_gid }
        }
    }

    public let ownerUID: uid_t
    public let admin: Group
    public let socket: Group

    public init(ownerUID: uid_t = getuid(), adminGroup: String, socketGroup: String) {
        self.ownerUID = ownerUID
        self.admin = Group(named: adminGroup)
        self.socket = Group(named: socketGroup)
    }

    public func role(of peer: Peer) -> Role {
        if peer.uid == 0 || peer.uid == ownerUID { return .owner }
        if let id = admin.id, peer.groups.contains(id) { return .admin }
        if let id = socket.id, peer.groups.contains(id) { return .user }
        return .none
    }

    /// What to tell a peer whose role is below what `operation` needs.
    public func refusal(_ operation: Command, role: Role, peer: Peer) -> String {
        let needed =
            switch operation.requiredRole {
            case .admin: "admin rights (members of group '\(admin.name)')"
            case .owner: "root"
            default: "membership of group '\(socket.name)' or '\(admin.name)'"
            }
        let have = role == .none ? "uid \(peer.uid) has no rights here" : "you have \(role) rights"
        return "permission denied: '\(operation.name)' needs \(needed); \(have). Ask an admin, or use sudo."
    }
}
