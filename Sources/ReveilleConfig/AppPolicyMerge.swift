import ReveilleApps
import ReveilleCore

/// How a hand edit of apps.toml joins the policy in force, app by app (README, "Where the app
/// policy lives"): `base` is the file as last merged, `file` the file now, `current` the policy in
/// force (which the page and the CLI change).
///
/// - An app the file did not change keeps what is in force (a page edit stands).
/// - An app the file changed takes the file's version, when nothing changed it here since.
/// - An app changed in both, differently, keeps what is in force and is a conflict: said in
///   `apps list`, `doctor` and on the page until the two agree. Its base stays, so the file's
///   change is not forgotten at the next merge.
/// - An app the file adds with an executable another app lists is a conflict too.
public enum AppPolicyMerge {
    public struct Outcome: Equatable, Sendable {
        public var policy: AppPolicy
        /// The file as merged: the next merge's base.
        public var base: AppPolicy
        /// Per app, why the file's change was not applied.
        public var conflicts: [String]
    }

    public static func merge(base: AppPolicy, file: AppPolicy, current: AppPolicy) -> Outcome {
        // By name, once: a policy of thousands of apps merges in time linear in its size.
        let was = byName(base), now = byName(file), here = byName(current)
        var names: [String] = []
        var named: Set<String> = []
        for app in current.apps + file.apps + base.apps where named.insert(app.name).inserted { names.append(app.name) }
        // Kept in `names` order; an entry the path check below takes back is nil'd, not removed.
        var result: [AppRule?] = []
        var newBase: [AppRule?] = []
        var resultIndex: [String: Int] = [:]
        var baseIndex: [String: Int] = [:]
        var conflicts: [String] = []
        var fromFile: [String] = []
        func keep(_ app: AppRule?, base kept: AppRule?) {
            if let app {
                resultIndex[app.name] = result.count
                result.append(app)
            }
            if let kept {
                baseIndex[kept.name] = newBase.count
                newBase.append(kept)
            }
        }
        for name in names {
            let was = was[name], now = now[name], here = here[name]
            if now == was || here == now {
                keep(here, base: now)
            } else if here == was {
                if now != nil { fromFile.append(name) }
                keep(now, base: now)
            } else {
                keep(here, base: was)
                conflicts.append(
                    "apps.toml's change to \"\(name)\" was not applied: it was also changed with 'reveille apps' or on the page since the file was last read; make them agree ('reveille apps export' prints the policy in force)"
                )
            }
        }
        // An executable the file's change gives to a second app: that change is not applied.
        let changedByFile = Set(fromFile)
        var owners: [String: String] = [:]
        for case let app? in result where !changedByFile.contains(app.name) {
            for path in app.paths { owners[path] = app.name }
        }
        for name in fromFile {
            guard let index = resultIndex[name], let app = result[index] else { continue }
            if let (path, owner) = app.paths.lazy.compactMap({ path in owners[path].map { (path, $0) } }).first {
                result[index] = here[name]
                if let index = baseIndex[name] { newBase[index] = was[name] }
                conflicts.append(
                    "apps.toml's change to \"\(name)\" was not applied: \(path) is already listed for \"\(owner)\"")
                continue
            }
            for path in app.paths { owners[path] = name }
        }
        return Outcome(
            policy: AppPolicy(apps: result.compactMap { $0 }), base: AppPolicy(apps: newBase.compactMap { $0 }),
            conflicts: conflicts)
    }

    private static func byName(_ policy: AppPolicy) -> [String: AppRule] {
        Dictionary(policy.apps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
