import Foundation
import ReveilleProtocol
import Testing

@testable import ReveilleDaemon

/// Rights from SO_PEERCRED (docs/guide/rights.md, "Who may do what").
@Suite struct PeerRightsTests {
    /// Debian's `nobody` user and `nogroup` group.
    static let nobody = 65_534

    @Test(
        .enabled(if: isRoot, "needs root: the client must run as another user (setpriv) to be a different peer"))
    func aSocketGroupMemberReadsButCannotManage() throws {
        let daemon = SharedDaemon.household  // one alarm: 06:45 on weekdays
        let status = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "status")
        #expect(status.status == 0)
        #expect(status.stdout.contains("next ring: Mon 2026-11-23 06:45"))
        let add = try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "alarm", "add", "5:00")
        #expect(add.status == 1)
        #expect(
            add.stderr == "reveille: permission denied: 'alarm add' needs admin rights (members of group "
                + "'reveille-admin'); you have user rights. Ask an admin, or use sudo.\n")
        #expect(try daemon.cli("alarm", "list", "--json").stdout.contains(#""time" : "06:45""#))
        #expect(try daemon.cli("alarm", "list").stdout.split(separator: "\n").count == 2)
        // Tags: users list them; registering and removing are for admins.
        let tag = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "tag", "add", "--label", "x", "--uid", "04112233")
        #expect(tag.stderr.hasPrefix("reveille: permission denied: 'tag add' needs admin rights"))
        #expect(try daemon.cli(asUID: Self.nobody, gid: Self.nobody, "tag", "list").status == 0)
    }

    @Test(.enabled(if: isRoot, "needs root: the client must run as another user (setpriv) to be a different peer"))
    func aStrangerCannotEvenConnect() throws {
        let daemon = SharedDaemon.household
        let outcome = try daemon.cli(asUID: Self.nobody, gid: 1, "status")
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr == "reveille: no permission to use \(daemon.paths.socket); ask an admin to add you to "
                + "the socket's group (see 'ls -l \(daemon.paths.socket)')\n")
        #expect(daemon.answersStatus())
    }

    @Test func rolesFollowUidAndGroups() {
        let access = PeerAccess(ownerUID: 1000, adminGroup: "root", socketGroup: "daemon")  // gid 0 and gid 1
        func role(uid: uid_t, _ groups: [gid_t]) -> Role { access.role(of: Peer(pid: 1, uid: uid, groups: groups)) }
        #expect(role(uid: 0, [5]) == .owner)
        #expect(role(uid: 1000, [5]) == .owner)
        #expect(role(uid: 2000, [5, 0]) == .admin)
        #expect(role(uid: 2000, [1]) == .user)
        #expect(role(uid: 2000, [5, 6]) == .none)
        let stranger = Peer(pid: 1, uid: 2000, groups: [5])
        #expect(
            access.refusal(.status, role: .none, peer: stranger)
                == "permission denied: 'status' needs membership of group 'daemon' or 'root'; uid 2000 has no rights "
                + "here. Ask an admin, or use sudo.")
    }
}

extension PeerRightsTests {
    @Test(.enabled(if: isRoot, "needs root: the client must run as another user (setpriv) to be a different peer"))
    func anAdminCannotHaveTheDaemonRunAShellCommand() throws {
        let daemon = try DaemonHarness(arguments: ["--admin-group", "nogroup", "--socket-group", "nogroup"])
        let marker = daemon.root.appendingPathComponent("ran").path
        let withCommand = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "reminder", "add", "bins", "--at", "19:00", "--days", "tue",
            "--unless", "touch \(marker)")
        #expect(withCommand.status == 1, "\(withCommand)")
        #expect(withCommand.stderr.hasPrefix("reveille: permission denied: 'reminder add' needs root"))
        let plain = try daemon.cli(
            asUID: Self.nobody, gid: Self.nobody, "reminder", "add", "bins", "--at", "19:00", "--days", "tue")
        #expect(plain.status == 0, "\(plain)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
