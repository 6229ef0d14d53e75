import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore
import Synchronization

/// Who counts as a person on this machine, for app limits that name nobody (README, "Apps"): login
/// UIDs from `UID_MIN` to `UID_MAX` of /etc/login.defs with a shell one logs in with. Root, system
/// accounts (services, package scripts, containers' users), accounts whose shell is nologin or false,
/// `nobody` and the kiosk's own user are not people, and are never limited unless a policy names them.
public enum LoginAccounts {
    /// The account the kiosk's browser runs as (`[web] kiosk_user`, or the package's), set by the
    /// daemon when it reads its settings: the screen's own session is no one's to limit.
    public static let kioskUser = Mutex<String?>(nil)

    /// The rule, pure: a login UID (not `nobody`), a shell one logs in with (an empty shell is
    /// /bin/sh, as passwd(5) says), and not the kiosk's user.
    public static func isPerson(uid: UInt32, shell: String?, name: String?, range: (UInt32, UInt32), kiosk: String?)
        -> Bool
    {
        guard uid >= range.0 && uid <= range.1 && uid != 65_534 else { return false }
        if let name, name == kiosk { return false }
        let shell = shell ?? ""
        return !["/nologin", "/false", "/true"].contains { shell.hasSuffix($0) }
    }

    /// The people who use the machine (`isPerson(uid:shell:name:range:kiosk:)`), looked up in the
    /// password database; an account it does not know is a person when its UID is a login one.
    public static func isPerson(uid: UInt32) -> Bool {
        if let known = knownUIDs.withLock({ $0[uid] }) { return known }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        let found = getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0 && result != nil
        let person = isPerson(
            uid: uid, shell: found ? entry.pw_shell.map { String(cString: $0) } : nil,
            name: found ? entry.pw_name.map { String(cString: $0) } : nil, range: loginRange,
            kiosk: kioskUser.withLock { $0 })
        knownUIDs.withLock { $0[uid] = person }
        return person
    }

    private static let knownUIDs = Mutex<[UInt32: Bool]>([:])

    /// Forgets what was looked up: the kiosk's user was set, or accounts changed.
    public static func forget() {
        knownUIDs.withLock { $0.removeAll() }
        knownPeople.withLock { $0.removeAll() }
    }

    /// `isPerson(uid:)` for a user name (a number is taken as a UID); unknown names are not people.
    public static func isPerson(name: String) -> Bool {
        if let known = knownPeople.withLock({ $0[name] }) { return known }
        var uid = UInt32(name)
        if uid == nil {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: 1024)
            if getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil { uid = entry.pw_uid }
        }
        let person = uid.map(isPerson(uid:)) ?? false
        knownPeople.withLock { $0[name] = person }
        return person
    }

    private static let knownPeople = Mutex<[String: Bool]>([:])

    /// The names of the people with an account on this machine (`isPerson`), sorted: those an app
    /// with no `users` limits. Read from the password database each time (accounts come and go).
    public static func people() -> [String] {
        passwordDatabase.withLock { _ in
            var names: Set<String> = []
            setpwent()
            defer { endpwent() }
            let kiosk = kioskUser.withLock { $0 }
            while let entry = getpwent() {
                let name = String(cString: entry.pointee.pw_name)
                let shell = entry.pointee.pw_shell.map { String(cString: $0) }
                if isPerson(uid: entry.pointee.pw_uid, shell: shell, name: name, range: loginRange, kiosk: kiosk) {
                    names.insert(name)
                }
            }
            return names.sorted()
        }
    }

    /// getpwent walks one cursor per process: one walk at a time.
    private static let passwordDatabase = Mutex<Void>(())

    /// UID_MIN and UID_MAX from /etc/login.defs, read once.
    public static let loginRange: (UInt32, UInt32) = {
        var low: UInt32 = 1000
        var high: UInt32 = 60000
        let text = (try? String(contentsOfFile: "/etc/login.defs", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, let value = UInt32(words[1]) else { continue }
            if words[0] == "UID_MIN" { low = value }
            if words[0] == "UID_MAX" { high = value }
        }
        return (low, high)
    }()

    /// What a policy's `users` lists beyond the people: root, a service account, a name this
    /// machine does not know. Each with what it is, for `apps validate` and `doctor`.
    public static func notPeople(in policy: AppPolicy) -> [(app: String, user: String, what: String)] {
        policy.apps.flatMap { app in
            app.users.filter { !isPerson(name: $0) }.map { user in
                (app.name, user, describe(user))
            }
        }
    }

    /// "root", "a system account (UID 109)", "unknown here".
    static func describe(_ user: String) -> String {
        if user == "root" || user == "0" { return "root" }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard
            let uid = UInt32(user)
                ?? (getpwnam_r(user, &entry, &buffer, buffer.count, &result) == 0 && result != nil ? entry.pw_uid : nil)
        else { return "not a user of this machine" }
        return uid == 65_534 ? "nobody (UID 65534)" : "a system account (UID \(uid), below UID_MIN \(loginRange.0))"
    }

    /// The warning for each, or none.
    public static func warnings(for policy: AppPolicy) -> [String] {
        notPeople(in: policy).map { entry in
            "app \(entry.app): users names \(entry.user), \(entry.what): its programs are limited too; "
                + "remove \(entry.user) from users unless that is meant (with no users, limits fall on the people: UIDs \(loginRange.0)-\(loginRange.1))"
        }
    }
}
