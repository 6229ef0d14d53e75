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
        var names: [String] = current.apps.map(\.name)
        for app in file.apps where !names.contains(app.name) { names.append(app.name) }
        for app in base.apps where !names.contains(app.name) { names.append(app.name) }
        var result: [AppRule] = []
        var newBase: [AppRule] = []
        var conflicts: [String] = []
        var fromFile: [String] = []
        for name in names {
            let was = base.app(named: name)
            let now = file.app(named: name)
            let here = current.app(named: name)
            if now == was || here == now {
                if let here { result.append(here) }
                if let now { newBase.append(now) }
            } else if here == was {
                if let now {
                    result.append(now)
                    fromFile.append(name)
                }
                if let now { newBase.append(now) }
            } else {
                if let here { result.append(here) }
                if let was { newBase.append(was) }
                conflicts.append(
                    "apps.toml's change to \"\(name)\" was not applied: it was also changed with 'reveille apps' or on the page since the file was last read; make them agree ('reveille apps export' prints the policy in force)"
                )
            }
        }
        // An executable the file's change gives to a second app: that change is not applied.
        var owners: [String: String] = [:]
        for app in result where !fromFile.contains(app.name) { for path in app.paths { owners[path] = app.name } }
        for name in fromFile {
            guard let index = result.firstIndex(where: { $0.name == name }) else { continue }
            let app = result[index]
            if let (path, owner) = app.paths.lazy.compactMap({ path in owners[path].map { (path, $0) } }).first {
                if let here = current.app(named: name) { result[index] = here } else { result.remove(at: index) }
                if let baseIndex = newBase.firstIndex(where: { $0.name == name }) {
                    if let was = base.app(named: name) {
                        newBase[baseIndex] = was
                    } else {
                        newBase.remove(at: baseIndex)
                    }
                }
                conflicts.append(
                    "apps.toml's change to \"\(name)\" was not applied: \(path) is already listed for \"\(owner)\"")
                continue
            }
            for path in app.paths { owners[path] = name }
        }
        return Outcome(policy: AppPolicy(apps: result), base: AppPolicy(apps: newBase), conflicts: conflicts)
    }
}
