import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// Pairing a browser for reveille-web (docs/guide/screen.md, "The screen"): codes, tokens, and the rights a
/// relayed request is served with.
@Suite struct WebPairingTests {
    /// Sends `command` as reveille-web would for a browser: with a cap and a device token.
    func relay(_ daemon: DaemonHarness, _ command: Command, cap: Role? = nil, device: String? = nil) throws -> Response
    {
        let client = try daemon.connect()
        try client.sendRaw(Framing.encode(Request(command, cap: cap, device: device)))
        let line = try #require(try client.readLine())
        return try JSONDecoder().decode(Response.self, from: Data(line))
    }

    func code(from outcome: Outcome) throws -> String {
        let line = try #require(outcome.stdout.split(separator: "\n").first)
        return String(try #require(line.split(separator: " ").last))
    }

    @Test func aCodePairsOneBrowserOnceWithTheRightsAskedAndACapOnlyLowers() throws {
        let daemon = try DaemonHarness()
        let pair = try daemon.cli("web", "pair", "--name", "kitchen phone")
        #expect(pair.status == 0)
        #expect(pair.stdout.hasPrefix("pairing code for \"kitchen phone\" (user rights): "))
        #expect(pair.stdout.contains("open http://127.0.0.1:8080/ and type it; it works once, for ten minutes"))
        let code = try code(from: pair)
        #expect(code.count == 9 && code.dropFirst(4).first == "-")

        // The digits alone are accepted too; the code works once.
        let redeemed = try relay(daemon, .webRedeem(code: code.replacingOccurrences(of: "-", with: "")))
        let token = try #require(redeemed.web?.token)
        #expect(token.count == 64)
        #expect(redeemed.message == "paired \"kitchen phone\" with user rights")
        let again = try relay(daemon, .webRedeem(code: code))
        #expect(again.error?.code == .notFound)
        #expect(again.error?.message.hasPrefix("that pairing code is unknown or has expired") == true)

        // The device's rights, never more: it may snooze and see, not manage.
        #expect(try relay(daemon, .status, cap: .admin, device: token).status?.role == .user)
        let add = try relay(daemon, .alarmAdd(spec: AlarmSpec()), cap: .admin, device: token)
        #expect(add.error?.code == .forbidden)
        #expect(add.error?.message.hasPrefix("permission denied: 'alarm add' needs admin rights") == true)

        // The token is stored only as its hash.
        let database = try String(contentsOf: URL(fileURLWithPath: daemon.paths.database), encoding: .isoLatin1)
        #expect(!database.contains(token))

        let devices = try daemon.cli("web", "devices")
        #expect(devices.stdout.contains("kitchen phone") && devices.stdout.contains("user"))
        #expect(
            try daemon.cli("web", "unpair", "1").stdout == "unpaired device #1; its browser is refused from now on\n")
        let refused = try relay(daemon, .status, device: token)
        #expect(refused.error?.code == .forbidden)
        #expect(
            refused.error?.message
                == "this browser is not paired, or was unpaired; pair it again with a code from 'sudo reveille web pair'"
        )
        #expect(try daemon.cli("web", "unpair", "1").status == 1)

        // An admin code manages; a cap only lowers.
        let adminToken = try #require(
            try relay(daemon, .webRedeem(code: try self.code(from: daemon.cli("web", "pair", "--admin")))).web?.token)
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("06:30")
        #expect(try relay(daemon, .alarmAdd(spec: spec), cap: .admin, device: adminToken).ok)
        // The kiosk's requests (no device) are capped at the household's rights, whoever the server runs as.
        #expect(try relay(daemon, .alarmRemove(id: 1), cap: .user).error?.code == .forbidden)
        #expect(try relay(daemon, .snooze, cap: .user).error?.code != .forbidden)
        // A cap cannot raise: an admin device stays admin under an owner cap.
        #expect(try relay(daemon, .status, cap: .owner, device: adminToken).status?.role == .admin)
    }

    /// A child's phone (`web pair --for`): the household's rights for the clock, the child's for
    /// apps. It reads that child's apps only, asks for more as them, and sees nothing of another's.
    @Test func aChildsPhoneIsServedAsTheChildForTheirOwnAppsOnly() throws {
        let daemon = try DaemonHarness()
        for (app, user) in [("game8", "nobody"), ("game9", "root")] {
            let added = try daemon.cli(
                "apps", "add", app, "--path", "/usr/games/\(app)", "--limit", "60", "--user", user)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let both = try daemon.cli("web", "pair", "--admin", "--for", "nobody")
        #expect(both.status == 64 && both.stderr.contains("a child's phone is paired with user rights"))
        let unknown = try daemon.cli("web", "pair", "--for", "no-such-child")
        #expect(unknown.status == 64 && unknown.stderr.contains("--for no-such-child: no such user on this machine"))

        let pair = try daemon.cli("web", "pair", "--for", "nobody", "--name", "mia's phone")
        #expect(pair.stdout.hasPrefix("pairing code for \"mia's phone\" (user rights, as nobody): "))
        let child = try #require(try relay(daemon, .webRedeem(code: code(from: pair))).web?.token)
        let household = try #require(
            try relay(daemon, .webRedeem(code: code(from: daemon.cli("web", "pair", "--name", "kitchen")))).web?.token)
        #expect(try daemon.cli("web", "devices").stdout.contains("user, as nobody"))

        let status = try relay(daemon, .status, cap: .admin, device: child).status
        #expect(status?.role == .user && status?.person == "nobody")
        #expect(try relay(daemon, .status, cap: .admin, device: household).status?.person == nil)
        // Their own apps, and nothing of the policy's health.
        let mine = try relay(daemon, .appsStatus(user: nil), cap: .admin, device: child)
        #expect(mine.apps?.map(\.name) == ["game8"] && mine.apps?.first?.user == "nobody")
        #expect(mine.appsReply?.rejected == nil)

        // Another child asks on their own account; the phone asks as its child.
        let root = try daemon.connect()
        #expect(try root.send(.appAsk(name: "game9", minutes: 20, why: "private: a call")).ok)
        let asked = try relay(daemon, .appAsk(name: "game8", minutes: 30, why: "homework"), cap: .admin, device: child)
        #expect(asked.ok, "\(asked.error?.message ?? "")")
        #expect(asked.appsReply?.requests?.first?.user == "nobody")
        let requests = try relay(daemon, .appRequests, cap: .admin, device: child).appsReply?.requests ?? []
        #expect(requests.map(\.app) == ["game8"] && requests.map(\.why) == ["homework"], "\(requests)")
        // Another's app gets the words an unknown one gets.
        let theirs = try relay(daemon, .appAsk(name: "game9", minutes: 30, why: nil), cap: .admin, device: child)
        #expect(theirs.error?.code == .notFound)
        #expect(
            try relay(daemon, .appAsk(name: "nothing", minutes: 30, why: nil), cap: .admin, device: child).error?
                .message
                == theirs.error?.message.replacingOccurrences(of: "game9", with: "nothing"))
        // The household's phones and the kiosk do not ask from the page: it is no one's account.
        for device in [household, nil] {
            let refused = try relay(daemon, .appAsk(name: "game8", minutes: 30, why: nil), cap: .user, device: device)
            #expect(refused.error?.code == .forbidden)
            #expect(refused.error?.message.contains("asking for more time is done by the child") == true)
        }
        // What is about the household's people stays with the admins' browsers.
        for command in [Command.appsOverview, .appsStatus(user: "root"), .history(days: 7)] {
            #expect(try relay(daemon, command, cap: .admin, device: child).error?.code == .forbidden)
        }
    }

    @Test func pairingNeedsAnAdminAndANameThatFits() throws {
        let daemon = SharedDaemon.unchanged
        let blank = try daemon.cli("web", "pair", "--name", "  ")
        #expect(blank.status == 64)
        #expect(blank.stderr.contains("give the device a short name"))
        #expect(try relay(daemon, .webPair(role: .admin, name: "x"), cap: .user).error?.code == .forbidden)
        #expect(try relay(daemon, .webPair(role: .owner, name: "x")).error?.code == .invalid)
        #expect(daemon.answersStatus())
    }
}
