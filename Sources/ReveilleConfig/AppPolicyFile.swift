import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore
import TOMLKit

/// The app policy file, `/etc/reveille/apps.toml`: one `[[app]]` table per app.
///
/// ```toml
/// [[app]]
/// name = "minecraft"
/// paths = ["/usr/games/minecraft-launcher"]
/// windows = ["07:00-08:00", "15:00-20:00"]            # every day; or per day:
/// # windows = { weekdays = ["15:00-20:00"], weekends = ["09:00-20:00"], fri = ["15:00-22:00"] }
/// limit_minutes = { weekdays = 60, weekends = 120 }    # or one number for every day;
/// # limit_minutes = { school_days = 60, days_off = 120 } # by the alarms' holiday calendars
/// users = ["kid"]                                      # optional: only these users
/// category = "reward"                                  # optional: or "learning"
/// enabled = true
/// ```
///
/// An app with neither `windows` nor `limit_minutes` is not set up, and blocked until it is.
public enum AppPolicyFile {
    static let appKeys = ["name", "category", "paths", "windows", "limit_minutes", "enabled", "users"]
    static let dayKeys = ["daily", "weekdays", "weekends", "mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// A policy file anyone but root may change would let them lift their limits: the daemon
    /// refuses it on the device (and whenever it runs as root), and `apps validate` says so too.
    /// A missing file passes (it is an empty policy).
    public static func checkOwnership(path: String) throws(ConfigError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if info.st_uid != 0 || info.st_mode & 0o022 != 0 {
            throw ConfigError(
                path: path, line: nil,
                message:
                    "refused: it must belong to root and be writable by root alone (sudo chown root: \(path); sudo chmod 644 \(path))"
            )
        }
    }

    /// Reads and checks `path`; every error names the file and line. A missing file is an empty
    /// policy. The text read comes back too ("" for a missing file), to be kept as the last good
    /// policy.
    public static func read(path: String) throws(ConfigError) -> (policy: AppPolicy, text: String) {
        let text = try text(path: path)
        return (try parse(TOMLDocument(path: path, text: text)), text)
    }

    /// The file's text; "" when it is missing (an empty policy).
    public static func text(path: String) throws(ConfigError) -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "" }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw ConfigError(path: path, line: nil, message: "cannot be read as UTF-8 text; check its permissions")
        }
        return text
    }

    /// The most problems `check` lists; a last one says how many more there were.
    public static let maxProblems = 50

    /// The policy, or the first of its problems (by line): what the daemon loads or refuses.
    public static func parse(_ document: TOMLDocument) throws(ConfigError) -> AppPolicy {
        let (policy, problems) = check(document)
        if let first = problems.first { throw first }
        return policy
    }

    /// Every problem found, by line (`apps validate` lists them all): each unknown top-level key,
    /// the first problem of each app table, and names or paths given twice. The policy holds the
    /// apps without problems.
    public static func check(_ document: TOMLDocument) -> (policy: AppPolicy, problems: [ConfigError]) {
        let root = document.root
        var problems: [ConfigError] = []
        for key in root.keys.sorted() where key != "app" {
            problems.append(document.error(key, in: nil, "unknown setting; the file holds [[app]] tables"))
        }
        var apps: [AppRule] = []
        if let value = root["app"] {
            if let array = value.array {
                apps = checkApps(array, document, &problems)
            } else {
                problems.append(document.error("app", in: nil, "write each app as an [[app]] table"))
            }
        }
        let ordered = problems.enumerated().sorted { first, second in
            (first.element.line ?? Int.max, first.offset) < (second.element.line ?? Int.max, second.offset)
        }.map(\.element)
        guard ordered.count > maxProblems else { return (AppPolicy(apps: apps), ordered) }
        // A file of thousands of mistakes is told by its first ones, and how many more there are.
        let more = ConfigError(
            path: document.path, line: nil,
            message: "and \(ordered.count - maxProblems) more problems; mend these first, then check again")
        return (AppPolicy(apps: apps), Array(ordered.prefix(maxProblems)) + [more])
    }

    private static func checkApps(_ array: TOMLArray, _ document: TOMLDocument, _ problems: inout [ConfigError])
        -> [AppRule]
    {
        var apps: [AppRule] = []
        var names: Set<String> = []
        var owners: [String: String] = [:]
        for index in 0..<array.count {
            guard let table = array[index].table else {
                problems.append(
                    ConfigError(path: document.path, line: nil, message: "app #\(index + 1): must be an [[app]] table"))
                continue
            }
            let app: AppRule
            do {
                app = try parseApp(table, index: index, document)
            } catch {
                problems.append(error)
                continue
            }
            if names.contains(app.name) {
                problems.append(error(document, index, "name", "another app is already called \"\(app.name)\""))
                continue
            }
            let clashes = app.paths.compactMap { path in owners[path].map { (path, $0) } }
            if let (path, owner) = clashes.first {
                problems.append(error(document, index, "paths", "\(path) is already listed for \"\(owner)\""))
                continue
            }
            for path in app.paths { owners[path] = app.name }
            names.insert(app.name)
            apps.append(app)
        }
        return apps
    }

    static func error(_ document: TOMLDocument, _ index: Int, _ key: String?, _ message: String) -> ConfigError {
        ConfigError(
            path: document.path, line: document.line(of: key, inArray: "app", index: index),
            message: "app #\(index + 1)\(key.map { " \($0)" } ?? ""): \(message)")
    }

    private static func parseApp(_ table: TOMLTable, index: Int, _ document: TOMLDocument) throws(ConfigError)
        -> AppRule
    {
        for key in table.keys.sorted() where !appKeys.contains(key) {
            throw error(document, index, key, "unknown setting; known here: \(appKeys.joined(separator: ", "))")
        }
        guard let name = table["name"]?.string, !name.isEmpty else {
            throw error(document, index, table["name"] == nil ? nil : "name", "needs a name = \"...\"")
        }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }), name.count <= 32 else {
            throw error(document, index, "name", "\"\(name)\": use 1-32 letters, digits, '-', '_' or '.'")
        }
        let named = "app \"\(name)\""
        func fail(_ key: String, _ message: String) -> ConfigError {
            ConfigError(
                path: document.path, line: document.line(of: key, inArray: "app", index: index),
                message: "\(named) \(key): \(message)")
        }
        guard let pathList = table["paths"]?.array, !pathList.isEmpty else {
            throw fail("paths", "list its executables, like paths = [\"/usr/games/minecraft\"]")
        }
        var paths: [String] = []
        for element in pathList {
            guard let path = element.string, path.hasPrefix("/") else {
                throw fail("paths", "\(element.string.map { "\"\($0)\"" } ?? "a value") is not an absolute path")
            }
            paths.append(path)
        }
        var rule = AppRule(name: name, paths: paths)
        if let windows = table["windows"] {
            rule.windows = try perDay(windows, key: "windows", fail: fail) {
                (value) throws(ConfigError) -> [TimeWindow] in
                guard let list = value.array else { throw fail("windows", "give a list like [\"07:00-20:00\"]") }
                var parsed: [TimeWindow] = []
                for element in list {
                    guard let text = element.string else {
                        throw fail("windows", "give windows as \"HH:MM-HH:MM\" strings")
                    }
                    do {
                        parsed.append(try TimeWindow.parse(text))
                    } catch let error as InputError {
                        throw fail("windows", error.message)
                    } catch {
                        throw fail("windows", "\(error)")
                    }
                }
                return parsed
            }
            // A day a table leaves out has no hours: said outright, so that two ways of writing
            // one policy compare equal.
            for day in Weekday.allCases where rule.windows?[day] == nil { rule.windows?[day] = [] }
        }
        if let limits = table["limit_minutes"] {
            func minutes(_ value: any TOMLValueConvertible) throws(ConfigError) -> Int {
                guard let minutes = value.int else { throw fail("limit_minutes", "give whole minutes, like 60") }
                if let problem = AppRule.limitProblem(minutes) { throw fail("limit_minutes", problem) }
                return minutes
            }
            // School days and days off, by the holiday calendars the alarms use, over the weekdays'.
            if let table = limits.table {
                rule.schoolDays = try table["school_days"].map(minutes)
                rule.daysOff = try table["days_off"].map(minutes)
            }
            rule.limits = try perDay(limits, key: "limit_minutes", fail: fail, also: ["school_days", "days_off"], minutes)
        }
        if let category = table["category"] {
            guard let text = category.string, let known = AppCategory(rawValue: text) else {
                throw fail("category", "must be \"learning\" or \"reward\" (or left out)")
            }
            rule.category = known
        }
        if let problem = rule.setupProblem { throw fail("limit_minutes", problem) }
        if let enabled = table["enabled"] {
            guard let flag = enabled.bool else { throw fail("enabled", "must be true or false") }
            rule.enabled = flag
        }
        if let users = table["users"] {
            guard let list = users.array else { throw fail("users", "give a list like [\"kid\"]") }
            for element in list {
                guard let user = element.string, !user.isEmpty else {
                    throw fail("users", "give user names as strings")
                }
                rule.users.append(user)
            }
        }
        return rule
    }

    /// A value for every day, or a table of `daily`/`weekdays`/`weekends`/`mon`..`sun` (the more
    /// specific wins); days not named get nothing.
    private static func perDay<T>(
        _ value: any TOMLValueConvertible, key: String, fail: (String, String) -> ConfigError,
        also: [String] = [], _ read: (any TOMLValueConvertible) throws(ConfigError) -> T
    ) throws(ConfigError) -> [Weekday: T] {
        guard let table = value.table else {
            let one = try read(value)
            return Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, one) })
        }
        var result: [Weekday: T] = [:]
        for name in table.keys where !dayKeys.contains(name) && !also.contains(name) {
            throw fail(key, "\"\(name)\" is not a day; use \((dayKeys + also).joined(separator: ", "))")
        }
        for name in dayKeys {  // general first, specific last, so the specific wins
            guard let entry = table[name] else { continue }
            let days: [Weekday] =
                switch name {
                case "daily": Weekday.allCases
                case "weekdays": [.monday, .tuesday, .wednesday, .thursday, .friday]
                case "weekends": [.saturday, .sunday]
                default: [Weekday(rawValue: dayKeys.firstIndex(of: name)! - 3)!]
                }
            let parsed = try read(entry)
            for day in days { result[day] = parsed }
        }
        return result
    }
}
