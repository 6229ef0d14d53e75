import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import Synchronization
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// The policy in force and its three ways in (docs/guide/apps.md, "Where the app policy lives"): it is kept
/// in the state with a revision; `reveille apps add|edit|rm` and the page change it there, each on
/// the revision it saw; a hand edit of apps.toml is merged in app by app (`AppPolicyMerge`). On the
/// event loop only.
extension AppSupervisor {
    /// apps.toml read, checked and parsed: the slow part of a reload (every entry checked), which
    /// the loop has done on a thread of its own (`AppFollower.policyChanged`); on no thread's
    /// state but the file's.
    struct FileRead: Sendable {
        let result: Result<(policy: AppPolicy, text: String), ConfigError>
    }

    /// Reads apps.toml at `path`, as `reload` takes it. `rootOwned`: on the device (or run as
    /// root) a policy file anyone but root may change would let them lift their limits, so it is
    /// refused; under --root for development, the developer owns it.
    static func readFile(path: String, rootOwned: Bool) -> FileRead {
        FileRead(
            result: Result { () throws(ConfigError) in
                if rootOwned { try AppPolicyFile.checkOwnership(path: path) }
                return try AppPolicyFile.read(path: path)
            })
    }

    /// How `readFile` is called for this supervisor's file.
    var fileReader: @Sendable () -> FileRead {
        let (path, rootOwned) = (policyPath, requireRootOwned || geteuid() == 0)
        return { AppSupervisor.readFile(path: path, rootOwned: rootOwned) }
    }

    /// Reads apps.toml (or takes `read`, done off the loop) and merges it into the policy in force;
    /// on error keeps the policy in force (at start: the one kept in the state) and logs file:line.
    /// Returns why the file was refused, or nil. `force`: read the listed executables again even if
    /// nothing changed (one of them did).
    @discardableResult
    func reload(force: Bool = false, read: FileRead? = nil) -> String? {
        let now = Int(clock.now().timeIntervalSince1970)
        readRecordOnce()
        if let hub = state.withLock({ $0.hub }) {
            followingHub(hub.name, force: force)
            return nil
        }
        do {
            let (file, text) = try (read ?? fileReader()).result.get()
            // An editor that saves twice, or a touch: nothing to do, nothing to log.
            let unchanged = state.withLock { $0.loadedText == text && $0.rejection == nil && $0.source != .none }
            if unchanged && !force { return nil }
            let (current, base, first) = state.withLock { ($0.limits.policy, $0.base, $0.source == .none) }
            let merged = AppPolicyMerge.merge(base: base, file: file, current: current)
            state.withLock { state in
                state.loadedText = text
                state.rejection = nil
                state.fileApps = text.isEmpty ? nil : file
                state.conflicts = merged.conflicts
            }
            for conflict in merged.conflicts { logger.warning("app policy: \(conflict)") }
            if merged.policy != current || merged.base != base || first || force {
                let changed = merged.policy != current
                enforce(merged.policy, from: .file)
                if changed || merged.base != base { save(merged.policy, base: merged.base, bump: changed, at: now) }
                logger.notice(
                    "app policy: \(counted(merged.policy.apps.count, "app")) in force\(changed && !first ? ", after a change to \(policyPath)" : " (\(policyPath) merged)")"
                )
            }
            return nil
        } catch {
            let (source, count) = state.withLock { state in
                state.rejection = (reason: "\(error)", since: state.rejection?.since ?? now)
                return (state.source, state.limits.policy.apps.count)
            }
            switch source {
            case .none:
                logger.error(
                    "app policy: \(error); no policy ever loaded here, so no app is limited until apps.toml loads")
            case .lastGood(let savedAt):
                logger.error(
                    "app policy: \(error); enforcing the last good policy instead (\(counted(count, "app")), as loaded \(Self.stamp(savedAt, zone: zone())))"
                )
            case .file, .edited, .hub:
                logger.error("app policy: \(error); the policy in force is kept (\(counted(count, "app")))")
            }
            return "\(error)"
        }
    }

    /// apps.toml (read or changed) on a machine that follows the household's hub: not used, and
    /// said once per change; `force` reads the listed executables of the hub's policy again.
    private func followingHub(_ hub: String, force: Bool) {
        let text = (try? AppPolicyFile.text(path: policyPath)) ?? ""
        let (changed, first) = state.withLock { state in
            defer { state.loadedText = text }
            return (state.loadedText != text, state.loadedText == nil)
        }
        if force { enforce(state.withLock { $0.limits.policy }, from: .hub) }
        if changed {
            logger.notice(
                "app policy: \(policyPath) is not enforced\(first ? "" : " after a change"): this machine follows the household's policy from \(hub); change it there"
            )
        }
    }

    /// At the first load: the policy kept in the state is put in force before the file is read,
    /// so that a broken or missing file never opens the gates. A state from before this was kept
    /// (only the last good apps.toml) starts from that copy.
    private func readRecordOnce() {
        guard !state.withLock({ $0.recordRead }) else { return }
        state.withLock { $0.recordRead = true }
        do {
            var record = try store.appPolicyInForce()
            var savedAt = record?.savedAt
            if record == nil, let good = try store.goodAppPolicy() {
                record = Store.AppPolicyRecord(text: good.text, base: good.text, revision: 1)
                savedAt = good.savedAt
            }
            let hub = try store.appPolicyHub()
            if let hub, !followsHub {
                try store.setAppPolicyHub(nil)
                logger.notice(
                    "app policy: this machine no longer follows the household's hub \(hub.name) (reveille.toml's [mqtt] makes it no member); apps.toml is merged again"
                )
            } else if let hub {
                state.withLock { $0.hub = hub }
            }
            guard let record, let savedAt else { return }
            let inForce = try AppPolicyFile.parse(TOMLDocument(path: "the policy kept in the state", text: record.text))
            let base = try AppPolicyFile.parse(
                TOMLDocument(path: "the merged apps.toml kept in the state", text: record.base))
            state.withLock {
                $0.base = base
                $0.revision = record.revision
            }
            enforce(inForce, from: .lastGood(savedAt: savedAt))
        } catch {
            logger.error("app policy: the policy kept in the state cannot be read: \(error); apps.toml alone is used")
        }
    }

    /// Keeps a merge of the file in the state; when it cannot, the merge is in force anyway (the
    /// file is merged again at the next start) and the log says so.
    private func save(_ policy: AppPolicy, base: AppPolicy, bump: Bool, at instant: Int) {
        do {
            try persist(policy, base: base, bump: bump, at: instant)
        } catch {
            logger.error(
                "app policy: cannot keep it in the state: \(error); it is in force, and apps.toml is merged again at the next start"
            )
        }
    }

    /// Writes the policy and its base to the state; the revision moves only once it is written.
    private func persist(_ policy: AppPolicy, base: AppPolicy, bump: Bool, at instant: Int) throws {
        let revision = state.withLock { $0.revision } + (bump ? 1 : 0)
        try store.saveAppPolicyInForce(
            Store.AppPolicyRecord(
                text: AppPolicyText.render(policy), base: AppPolicyText.render(base), revision: revision),
            at: instant)
        state.withLock { state in
            state.base = base
            state.revision = revision
        }
    }

    var revision: Int { state.withLock { $0.revision } }

    /// Hand edits of apps.toml not applied, and why.
    var conflicts: [String] { state.withLock { $0.conflicts } }

    /// The policy in force for `apps list` and the page.
    func policyInfo() -> AppPolicyInfo {
        state.withLock { state in
            let apps = state.limits.policy.apps
            let differs =
                state.fileApps.map { file in
                    apps.map(\.name).filter { file.app(named: $0) != state.limits.policy.app(named: $0) }
                } ?? []
            var info = AppPolicyInfo(
                revision: state.revision, apps: apps.map(AppSetup.init),
                conflicts: state.hub == nil ? state.conflicts : [],
                differsFromFile: state.hub == nil ? differs : [], file: policyPath)
            info.hub = state.hub?.name
            info.hubSince = state.hub.map { Self.stamp($0.since, zone: zone()) }
            return info
        }
    }

    var exportText: String { AppPolicyText.render(state.withLock { $0.limits.policy }) }

    /// `apps add` (`adding`) or `apps edit`, and the page's sheet: the app's new setup, checked as
    /// apps.toml's would be. Refused on an older revision than the one in force.
    func put(_ setup: AppSetup, adding: Bool, revision: Int?) throws {
        let rule = try setup.rule()
        let document = try TOMLDocument(
            path: "app \"\(rule.name)\"", text: AppPolicyText.render(AppPolicy(apps: [rule])))
        // The made-up file's line means nothing to the person: the message alone.
        if let problem = AppPolicyFile.check(document).problems.first { throw InputError(problem.message) }
        try change(revision: revision, by: adding ? "apps add" : "apps edit") { apps in
            let index = apps.firstIndex { $0.name == rule.name }
            if adding, index != nil {
                throw InputError(
                    "there is already an app called \"\(rule.name)\"; change it with 'reveille apps edit \(rule.name)'")
            }
            if !adding, index == nil { throw noApp(rule.name) }
            for other in apps where other.name != rule.name {
                if let path = rule.paths.first(where: other.paths.contains) {
                    throw InputError("\(path) is already listed for \"\(other.name)\"")
                }
            }
            if let index { apps[index] = rule } else { apps.append(rule) }
        }
    }

    func remove(_ name: String, revision: Int?) throws {
        try change(revision: revision, by: "apps rm") { apps in
            guard let index = apps.firstIndex(where: { $0.name == name }) else { throw noApp(name) }
            apps.remove(at: index)
        }
    }

    private func change(revision: Int?, by who: String, _ edit: (inout [AppRule]) throws -> Void) throws {
        let (current, inForce, hub) = state.withLock { ($0.limits.policy, $0.revision, $0.hub) }
        if let hub {
            throw Refusal(
                .refused,
                "this machine follows the household's app policy from \(hub.name): change it there (its 'reveille apps' or its page); nothing was changed here"
            )
        }
        if let revision, revision != inForce {
            throw Refusal(
                .refused,
                "the apps changed since you opened them (revision \(revision), now \(inForce)); nothing was saved: look again and redo the change"
            )
        }
        var apps = current.apps
        try edit(&apps)
        let policy = AppPolicy(apps: apps)
        // Kept first, in force after: a change the state cannot hold (a full disk) is refused
        // whole, and the policy in force stays what the state says.
        do {
            try persist(
                policy, base: state.withLock { $0.base }, bump: true, at: Int(clock.now().timeIntervalSince1970))
        } catch {
            logger.error("app policy: '\(who)' not saved: \(error)")
            throw Refusal(
                .unavailable, "the change cannot be kept (\(error)); nothing was changed: free some space and try again"
            )
        }
        enforce(policy, from: .edited)
        logger.notice("app policy: changed by '\(who)' (revision \(self.revision), \(counted(apps.count, "app")))")
    }

    // MARK: The household's hub

    /// The hub's policy (apps.toml's text, checked as the file is): in force here, kept in the
    /// state, and followed from now on. Returns whether anything changed.
    func follow(hub: String, policyText: String) throws -> Bool {
        guard followsHub else { throw notFollowing() }
        try AppLimits.checkedMachine(hub)
        let policy = try AppPolicyFile.parse(
            TOMLDocument(path: "the policy of the household's hub \(hub)", text: policyText))
        let (current, previous) = state.withLock { ($0.limits.policy, $0.hub) }
        if policy == current && previous?.name == hub { return false }
        let now = Int(clock.now().timeIntervalSince1970)
        // Following since the first policy from this hub.
        let since = previous.flatMap { $0.name == hub ? $0.since : nil } ?? now
        let followed = (name: hub, since: since)
        do {
            try persist(policy, base: state.withLock { $0.base }, bump: policy != current, at: now)
            try store.setAppPolicyHub(followed)
        } catch {
            logger.error("app policy: the household's policy from \(hub) not kept: \(error)")
            throw Refusal(.unavailable, "the hub's policy cannot be kept here (\(error)); the policy in force stays")
        }
        state.withLock { $0.hub = followed }
        enforce(policy, from: .hub)
        logger.notice(
            "app policy: \(counted(policy.apps.count, "app")) in force, from the household's hub \(hub) (revision \(revision))"
        )
        return true
    }

    /// The hub's grants of a day: each raises this machine's grant to the hub's (never lowers
    /// it). A day that is not today here changes nothing. Returns the grants that rose.
    func follow(hub: String, grants: HubGrants) throws -> [AppGranted] {
        guard followsHub else { throw notFollowing() }
        try AppLimits.checkedMachine(hub)
        let day = try CivilDate.parse(grants.day)
        let checked = try AppLimits.checkedGrants(grants.grants.map { ($0.app, $0.user, $0.minutes) })
        guard day == today() else { return [] }
        var rose: [AppGranted] = []
        for (key, minutes) in checked.sorted(by: { ($0.key.app, $0.key.user) < ($1.key.app, $1.key.user) }) {
            let user = key.user == AppLimits.everyone ? nil : key.user
            let total = try store.raiseAppGrant(to: minutes, app: key.app, user: user, on: day)
            guard total.rose else { continue }
            state.withLock { $0.limits.granted(key.app, user: user, totalMinutes: total.minutes) }
            rose.append(AppGranted(app: key.app, user: user, minutes: total.minutes))
        }
        if !rose.isEmpty {
            let said = rose.map { "\($0.app) \($0.minutes) min to \($0.user ?? "everyone")" }
            logger.notice("app grants from the household's hub \(hub) for today: \(said.joined(separator: ", "))")
        }
        return rose
    }

    private func notFollowing() -> Refusal {
        Refusal(
            .refused,
            "this machine follows no household's hub: reveille.toml's [mqtt] names no household, or makes this machine the hub"
        )
    }

    func noApp(_ name: String) -> Refusal {
        let known = appNames
        return Refusal(
            .notFound,
            "no app \"\(name)\" in the policy"
                + (known.isEmpty ? " (it lists none)" : "; it lists \(known.joined(separator: ", "))"))
    }

}
