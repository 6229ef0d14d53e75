import FoundationEssentials
import Glibc
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol

/// Where the daemon's zone comes from, and how to read it again when a watched folder changes.
public enum ZoneSource: Sendable {
    /// These rules, never re-read (in-process tests).
    case fixed(Zone)
    /// A zone by name (`time_zone` in reveille.toml, `--time-zone`): its tzdata file is re-read
    /// when it changes.
    case named(String)
    /// The system's zone, named by a link (`/etc/localtime`): followed when the link or the zone's
    /// file changes.
    case system(link: String)

    /// The zone's rules as they are now. `current`: the rules in hand, kept while the zone's file
    /// is briefly missing (zic removes it before writing it again).
    func load(current: Zone? = nil) -> Zone {
        switch self {
        case .fixed(let zone):
            return zone
        case .named(let name):
            if let current, current.identifier == name, !current.isBuiltIn,
                !FileManager.default.fileExists(atPath: ZoneInfo.file(for: name))
            {
                return current
            }
            return ZoneInfo.load(name) ?? current ?? .utc
        case .system(let link):
            return SystemZone.current(link: link)
        }
    }

    /// The folders whose changes may change the rules: the zone file's (a tzdata update, zic), and
    /// for the system's zone the link's (timedatectl and raspi-config replace the link).
    /// The names in `folder` that say which zone the system uses (the link and Debian's
    /// `/etc/timezone`), when `folder` holds the zone link; nil: any name there matters.
    func linkNames(in folder: String) -> Set<String>? {
        guard case .system(let link) = self, SystemZone.folder(of: link) == folder else { return nil }
        return [PathName.last(link), "timezone"]
    }

    func folders(for zone: Zone) -> [String] {
        let file: String
        var folders: [String] = []
        switch self {
        case .fixed: return []
        case .named: file = ZoneInfo.file(for: zone.identifier)
        case .system(let link):
            folders.append(SystemZone.folder(of: link))
            file = SystemZone.linkTarget(link) ?? ZoneInfo.file(for: zone.identifier)
        }
        if FileManager.default.fileExists(atPath: file) { folders.append(SystemZone.folder(of: file)) }
        return folders
    }
}

/// The system's time zone, read afresh each time: `$TZ`, else the target of the zone link
/// (`/etc/localtime`, a link into /usr/share/zoneinfo as timedatectl and raspi-config set it), else
/// `/etc/timezone`, else UTC. Its rules come from tzdata (`ZoneInfo`) when the system has them.
enum SystemZone {
    /// The link that names the zone: `DIR/etc/localtime` when running under `--root DIR` and that
    /// link exists (development and tests), else `/etc/localtime`.
    static func link(for paths: Paths) -> String {
        let own = paths.root + "/etc/localtime"
        var info = stat()
        return !paths.isSystem && lstat(own, &info) == 0 ? own : "/etc/localtime"
    }

    static func current(link: String = "/etc/localtime") -> Zone {
        if let name = ProcessInfo.processInfo.environment["TZ"].map({ String($0.drop(while: { $0 == ":" })) }),
            !name.isEmpty
        {
            let zone =
                name.hasPrefix("/") ? ZoneInfo.load(file: name, name: name) : ZoneInfo.load(name)
            if let zone { return zone }
        }
        if let target = linkTarget(link) {
            // The file the link points at holds the rules glibc would use; its name is what follows
            // "zoneinfo/" in the target.
            let name = target.firstRange(of: "zoneinfo/").map { String(target[$0.upperBound...]) } ?? target
            let directory = target.firstRange(of: "zoneinfo/").map { String(target[..<$0.upperBound].dropLast()) }
            if let zone = ZoneInfo.load(file: target, name: name, directory: directory) ?? ZoneInfo.load(name) {
                return zone
            }
        }
        if let name = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8).trimmed(),
            let zone = ZoneInfo.load(name)
        {
            return zone
        }
        return ZoneInfo.load(file: link, name: link) ?? .utc
    }

    /// Where a link points, as an absolute path; nil when `path` is not a link.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : folder(of: path) + "/" + target
    }

    static func folder(of path: String) -> String {
        PathName.folder(path)
    }
}
