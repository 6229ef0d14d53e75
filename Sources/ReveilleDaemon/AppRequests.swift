import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol

/// `reveille apps ...` and `reveille run` (README, "App time windows and daily limits").
final class AppRequests: RequestHandler {
    /// The policy and its enforcement; nil where none runs (in-process tests).
    private let supervisor: AppSupervisor?

    init(supervisor: AppSupervisor?) {
        self.supervisor = supervisor
    }

    func handle(_ request: Asked) throws -> Handled {
        .answer(try respond(to: request.command, peer: request.peer))
    }

    private func respond(to operation: Command, peer: Peer?) throws -> Response {
        guard let apps = supervisor else {
            throw Refusal(.unavailable, "the app policy is not loaded")
        }
        let caller = peer.map { ProcessOwner.name(of: $0.uid) } ?? "?"
        var response = Response()
        switch operation {
        case .appsStatus(let user):
            var reply = AppsReply(apps: apps.appNames.compactMap { apps.statusInfo($0, user: user ?? caller) })
            reply.rejected = apps.rejection
            response.payload = .apps(reply)
        case .appsOverview:
            var reply = AppsReply(
                apps: apps.limitedUsers().flatMap { app in
                    app.users.compactMap { apps.statusInfo(app.app, user: $0) }
                })
            reply.rejected = apps.rejection
            response.payload = .apps(reply)
        case .appCheck(let name, let user):
            guard let info = apps.statusInfo(name, user: user ?? caller) else { throw noApp(name, apps) }
            response.payload = .apps(AppsReply(apps: [info]))
        case .appGrant(let name, let minutes, let user):
            guard (1...720).contains(minutes) else { throw InputError("--minutes \(minutes): must be 1-720") }
            guard apps.appNames.contains(name) else { throw noApp(name, apps) }
            if let user, user.isEmpty || user == AppLimits.everyone || getpwnam(user) == nil {
                throw InputError("--user \(user): no such user on this machine")
            }
            let total = try apps.grant(minutes, to: name, user: user)
            let who = user.map { " to \($0)" } ?? ""
            response.message =
                "granted \(name) \(minutes) more minutes today\(who) (\(total) granted\(who) today in all)"
            // Minutes are not hours: say so when the app is outside its window now.
            if let info = apps.statusInfo(name, user: user ?? caller), !info.allowed,
                info.reason.hasPrefix("outside its hours")
            {
                response.message! += "; a grant does not open a closed window: \(name) is \(info.reason)"
            }
        case .appStart(let name):
            guard let peer else { throw Refusal(.forbidden, "'run' needs to know who asks") }
            guard let info = apps.statusInfo(name, user: caller), let executable = apps.executable(of: name) else {
                throw noApp(name, apps)
            }
            guard info.allowed else { throw Refusal(.refused, "\(name): \(info.reason)") }
            if apps.appliesTo(name, user: caller) { apps.follow(pid: peer.pid, app: name, user: caller) }
            response.payload = .apps(AppsReply(apps: [info], executable: executable))
        default: throw misrouted(operation)
        }
        return response
    }

    private func noApp(_ name: String, _ apps: AppSupervisor) -> Refusal {
        let known = apps.appNames
        return Refusal(
            .notFound,
            "no app \"\(name)\" in the policy"
                + (known.isEmpty ? " (it lists none)" : "; it lists \(known.joined(separator: ", "))"))
    }
}
