import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore

/// `reveille apps ...` and `reveille run` (docs/guide/apps.md, "App time windows and daily limits", "Setting
/// up apps", "A child's side").
final class AppRequests: RequestHandler {
    /// The policy and its enforcement; nil where none runs (in-process tests).
    private let supervisor: AppSupervisor?
    private let publish: (WatchEvent) -> Void
    /// The installed applications, for the app picker.
    private let catalog: AppCatalog

    init(supervisor: AppSupervisor?, catalog: AppCatalog, publish: @escaping (WatchEvent) -> Void) {
        self.supervisor = supervisor
        self.catalog = catalog
        self.publish = publish
    }

    func handle(_ request: Asked) throws -> Handled {
        .answer(try respond(to: request))
    }

    private func respond(to request: Asked) throws -> Response {
        guard let apps = supervisor else {
            throw Refusal(.unavailable, "the app policy is not loaded")
        }
        let (operation, peer, device) = (request.command, request.peer, request.device)
        // Who asks: the child a phone is paired for, else the user at the other end of the socket.
        // A child's phone has the household's rights for the clock, and a child's for apps.
        let caller = request.person ?? peer.map { ProcessOwner.name(of: $0.uid) } ?? "?"
        let role = request.person == nil ? request.role : min(request.role, .none)
        var response = Response()
        switch operation {
        case .appsStatus(let user):
            var infos = apps.appNames.compactMap { apps.statusInfo($0, user: user ?? caller) }
            // Someone with no rights here sees the apps that limit them, and nothing of the policy's health.
            if role < .user { infos = infos.filter { apps.appliesTo($0.name, user: caller) } }
            var reply = AppsReply(apps: infos)
            if role >= .user { reply.rejected = apps.rejection }
            response.payload = .apps(reply)
        case .appsOverview:
            var reply = AppsReply(
                apps: apps.limitedUsers().flatMap { app in
                    app.users.compactMap { apps.statusInfo(app.app, user: $0) }
                })
            reply.rejected = apps.rejection
            reply.policy = apps.policyInfo()
            response.payload = .apps(reply)
        case .appCheck(let name, let user):
            guard let info = apps.statusInfo(name, user: user ?? caller) else { throw apps.noApp(name) }
            response.payload = .apps(AppsReply(apps: [info]))
        case .appGrant(let name, let minutes, let user, let openNow):
            guard apps.appNames.contains(name) else { throw apps.noApp(name) }
            if let user, user.isEmpty || user == AppLimits.everyone || getpwnam(user) == nil {
                throw InputError("--user \(user): no such user on this machine")
            }
            let total = try apps.grant(minutes, to: name, user: user, openNow: openNow == true)
            publish(.appGranted(AppGranted(app: name, user: user, minutes: total.minutes)))
            let who = user.map { " to \($0)" } ?? ""
            response.message =
                "granted \(name) \(minutes) more minutes today\(who) (\(total.minutes) granted\(who) today in all)"
            response.message! += windowNote(name, user: user ?? caller, openUntil: total.openUntil, apps)
        case .appStart(let name):
            guard let peer else { throw Refusal(.forbidden, "'run' needs to know who asks") }
            guard let info = apps.statusInfo(name, user: caller), let executable = apps.executable(of: name) else {
                throw apps.noApp(name)
            }
            guard info.allowed else { throw Refusal(.refused, "\(name): \(info.reason)") }
            if apps.appliesTo(name, user: caller) { apps.follow(pid: peer.pid, app: name, user: caller) }
            response.payload = .apps(AppsReply(apps: [info], executable: executable))
        case .appList:
            response.payload = .apps(policyReply(apps))
        case .appPut(let setup, let adding, let revision):
            try apps.put(setup, adding: adding, revision: revision)
            published(apps)
            let reply = policyReply(apps)
            let summary = reply.policy?.apps.first { $0.name == setup.name }?.summary ?? ""
            response.message = "\(adding ? "added" : "changed") \(setup.name): \(summary)"
            response.payload = .apps(reply)
        case .appRemove(let name, let revision):
            try apps.remove(name, revision: revision)
            published(apps)
            response.message = "removed \(name); it is no longer limited"
            response.payload = .apps(policyReply(apps))
        case .appCatalog:
            var reply = AppsReply(apps: [])
            reply.installed = catalog.installed(listed: apps.listedPaths)
            reply.people = LoginAccounts.people()
            response.payload = .apps(reply)
        case .appExport:
            var reply = AppsReply(apps: [])
            reply.text = apps.exportText
            response.payload = .apps(reply)
        case .appAsk(let name, let minutes, let why):
            guard peer != nil else { throw Refusal(.forbidden, "'apps ask' needs to know who asks") }
            // The page is the household's: only a phone paired for a child asks from it, as them.
            if request.relayed, request.person == nil { throw AppRequests.askFromAChildsPhone }
            let request = try ask(name, minutes: minutes, why: why, user: caller, role: role, apps)
            publish(.appRequest(request))
            response.message =
                "asked for \(minutes) more minutes of \(name) (request #\(request.id)); an admin answers on the clock's page or with 'reveille apps approve \(request.id)'"
            var reply = AppsReply(apps: [])
            reply.requests = [request]
            response.payload = .apps(reply)
        case .appRequests:
            var reply = AppsReply(apps: [])
            reply.requests = try requests(apps).filter { role >= .admin || $0.user == caller }
            response.payload = .apps(reply)
        case .appAnswer(let id, let approve, let openNow):
            // Who answered: the paired phone's name, else the user.
            let (request, openUntil) = try answer(
                id, approve: approve, openNow: approve && openNow == true, by: device ?? caller, apps)
            publish(.appRequest(request))
            response.message = AppNoticeText.line(request)
            if approve { response.message! += windowNote(request.app, user: request.user, openUntil: openUntil, apps) }
            var reply = AppsReply(apps: [])
            reply.requests = [request]
            response.payload = .apps(reply)
        case .appsHousehold(let machine, let day, let usage):
            let date = try CivilDate.parse(day)
            let counts = try AppLimits.checkedCounts(from: machine, usage.map { ($0.user, $0.app, $0.seconds) })
            if apps.heard(from: machine, on: date, usage: counts) { apps.review() }
            response.message = "counted \(machine)'s time on \(date)"
        case .appsFromHub(let hub, let policy, let grants):
            var said: [String] = []
            if let policy {
                let changed = try apps.follow(hub: hub, policyText: policy)
                if changed { published(apps) }
                said.append(changed ? "the policy of \(hub) is in force" : "the policy of \(hub) was in force already")
            }
            if let grants {
                let rose = try apps.follow(hub: hub, grants: grants)
                for granted in rose { publish(.appGranted(granted)) }
                if !rose.isEmpty { apps.review() }
                said.append("\(rose.count) of \(hub)'s grants for \(grants.day) rose here")
            }
            response.message = said.joined(separator: "; ")
        default: throw misrouted(operation)
        }
        return response
    }

    /// Minutes are not hours: said when the app is outside its window now, unless the grant
    /// opened it (`openUntil`).
    private func windowNote(_ name: String, user: String, openUntil: Int?, _ apps: AppSupervisor) -> String {
        if let openUntil {
            let until = ZoneResolver(zone: apps.zone()).local(at: openUntil).time.hoursAndMinutes
            return "; \(name) is open now until \(until), outside its hours if need be"
        }
        let decision = apps.decide(name, user: user)
        guard decision.outsideWindow else { return "" }
        return "; a grant does not open a closed window: \(name) is \(decision.reason) (--open-now opens it now)"
    }

    private func policyReply(_ apps: AppSupervisor) -> AppsReply {
        var reply = AppsReply(apps: [])
        reply.policy = apps.policyInfo()
        reply.rejected = apps.rejection
        return reply
    }

    private func published(_ apps: AppSupervisor) {
        apps.review()
        publish(.appPolicy(apps.revision))
    }

    // MARK: Asking for more time

    private func ask(
        _ name: String, minutes: Int, why: String?, user: String, role: Role, _ apps: AppSupervisor
    ) throws -> AppRequestInfo {
        let listed = apps.appNames.contains(name)
        guard listed, apps.appliesTo(name, user: user) else {
            // Someone with no rights here learns nothing of the others' apps: an app that does not
            // exist and one that limits someone else get the same words.
            if role < .user { throw AppRequests.notYours(name, user: user) }
            guard listed else { throw apps.noApp(name) }
            throw Refusal(.refused, "\(name) does not limit \(user): there is nothing to ask for")
        }
        let reason = why.map { $0.trimmed() }.flatMap { $0.isEmpty ? nil : Sanitized.line($0) }
        let today = apps.today()
        let mine = try apps.store.appRequests(on: today).filter { $0.user == user }
        if let refusal = AppAsking.refusal(
            minutes: minutes, why: reason, waiting: mine.filter { $0.state == "waiting" }.count, today: mine.count)
        {
            throw InputError(refusal)
        }
        let now = Int(apps.clock.now().timeIntervalSince1970)
        let id = try apps.store.addAppRequest(
            user: user, app: name, minutes: minutes, why: reason, on: today, at: now)
        apps.logger.notice("app \(name): \(user) asks for \(minutes) more minutes (request #\(id))")
        let resolver = ZoneResolver(zone: apps.zone())
        return AppRequestInfo(
            id: id, user: user, app: name, minutes: minutes, why: reason,
            askedAt: resolver.local(at: now).time.hoursAndMinutes, state: .waiting)
    }

    static let askFromAChildsPhone = Refusal(
        .forbidden,
        "asking for more time is done by the child: from their own account, or from a phone paired for them")

    /// The one refusal a user without rights gets for an app that is not theirs to ask about.
    static func notYours(_ name: String, user: String) -> Refusal {
        Refusal(
            .notFound,
            "no app \"\(name)\" limits \(user): there is nothing to ask for ('reveille apps status' lists your apps)")
    }

    private func answer(_ id: Int, approve: Bool, openNow: Bool, by who: String, _ apps: AppSupervisor) throws -> (
        AppRequestInfo, openUntil: Int?
    ) {
        guard let request = try requests(apps).first(where: { $0.id == id }) else {
            throw Refusal(.notFound, "no request #\(id) today (reveille apps requests lists them)")
        }
        guard request.state == .waiting else {
            throw Refusal(.refused, "request #\(id) was already answered (\(request.state.rawValue))")
        }
        guard try apps.store.answerAppRequest(id, state: approve ? "approved" : "refused", by: who) else {
            throw Refusal(.refused, "request #\(id) was already answered")
        }
        let openUntil =
            approve
            ? try apps.grant(request.minutes, to: request.app, user: request.user, openNow: openNow).openUntil : nil
        apps.logger.notice(
            "app \(request.app): request #\(id) of \(request.user) \(approve ? "approved" : "refused") by \(who)")
        var answered = request
        answered.state = approve ? .approved : .refused
        answered.answeredBy = who
        return (answered, openUntil)
    }

    private func requests(_ apps: AppSupervisor) throws -> [AppRequestInfo] {
        let resolver = ZoneResolver(zone: apps.zone())
        return try apps.store.appRequests(on: apps.today()).map { record in
            AppRequestInfo(
                id: record.id, user: record.user, app: record.app, minutes: record.minutes, why: record.why,
                askedAt: resolver.local(at: record.askedAt).time.hoursAndMinutes,
                state: AppRequestInfo.State(rawValue: record.state) ?? .waiting, answeredBy: record.answeredBy)
        }
    }
}
