import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleSystem
import Synchronization

/// Time-zone rules from the operating system's tzdata (`/usr/share/zoneinfo`, or `$TZDIR`), read
/// through glibc, so a Debian `tzdata` update reaches the clock without a rebuild.
///
/// glibc reads a zone only as the process's `TZ`; loading sets `TZ` to the zone file's path for a
/// moment (under a lock, then puts it back), samples `localtime_r` from 1970 to 2100 and keeps the
/// offsets as a `ZoneTable`, a plain value the core can use from any thread. Where the system has
/// no file for a zone, the rules built into the binary (ICU) are used, and `origin` says so.
public enum ZoneInfo {
    /// The tzdata folder: `$TZDIR` (as glibc honours it), else /usr/share/zoneinfo.
    public static var directory: String {
        let value = ProcessInfo.processInfo.environment["TZDIR"] ?? ""
        return value.isEmpty ? "/usr/share/zoneinfo" : value
    }

    /// The file holding a zone's rules: `name` inside `directory`, or `name` itself when absolute.
    public static func file(for name: String, directory: String = ZoneInfo.directory) -> String {
        name.hasPrefix("/") ? name : directory + "/" + name
    }

    /// Whether a name is a zone: a compiled zone file in tzdata, or a zone the built-in rules know.
    public static func isKnown(_ name: String, directory: String = ZoneInfo.directory) -> Bool {
        isZoneName(name) && (isZoneFile(file(for: name, directory: directory)) || TimeZone(identifier: name) != nil)
    }

    /// The zone's rules: from tzdata when the system has them, else built in; nil when neither knows it.
    /// `span`: the instants whose offsets are read (a helper that needs a few years reads only those).
    public static func load(_ name: String, directory: String = ZoneInfo.directory, span: Range<Int> = ZoneInfo.span)
        -> Zone?
    {
        guard isZoneName(name) else { return nil }
        if let zone = load(file: file(for: name, directory: directory), name: name, directory: directory, span: span) {
            return zone
        }
        return Zone(builtIn: name)
    }

    /// The rules in one compiled zone file (the target of /etc/localtime, say), under `name`.
    /// `directory`: the tzdata folder the file belongs to, if any, for its version.
    public static func load(file path: String, name: String, directory: String? = nil, span: Range<Int> = ZoneInfo.span)
        -> Zone?
    {
        guard isZoneFile(path), let table = table(path, span: span) else { return nil }
        return Zone(identifier: name, origin: origin(directory: directory, path: path), table: table)
    }

    /// `tzdata 2025b` (the version in the folder's tzdata.zi), else where the file is.
    static func origin(directory: String?, path: String) -> String {
        let version = directory.flatMap { try? String(contentsOfFile: $0 + "/tzdata.zi", encoding: .utf8) }
            .flatMap { $0.split(separator: "\n", maxSplits: 1).first }
            .flatMap { $0.hasPrefix("# version ") ? $0.dropFirst("# version ".count) : nil }
        return version.map { "tzdata \($0)" } ?? "tzdata file \(path)"
    }

    /// Names as IANA spells them: no empty parts, no `..` (a name must not reach outside the folder).
    static func isZoneName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/") else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".."
                && part.allSatisfy { $0.isLetter || $0.isNumber || "_-+".contains($0) }
        }
    }

    /// A compiled zone file starts with "TZif". (glibc reads anything else as UTC, silently.)
    static func isZoneFile(_ path: String) -> Bool {
        RegularFile.head(path, count: 4) == Array("TZif".utf8)
    }

    /// One load at a time: `TZ` belongs to the whole process.
    private static let lock = Mutex(())

    /// 1970-01-01 to 2100-01-01: far beyond any alarm's horizon.
    public static let span = 0..<4_102_444_800

    private static func table(_ path: String, span: Range<Int>) -> ZoneTable? {
        lock.withLock { _ in
            // Lent: a log line stamped meanwhile on another thread keeps the process's own zone.
            ProcessZone.lend {
                let saved = getenv("TZ").map { String(cString: $0) }
                defer {
                    if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
                    tzset()
                }
                // A plain rule first, so glibc lets go of the file it read last and reads this one
                // afresh (it keeps a file while the name in TZ and the file's inode and time stay the same).
                setenv("TZ", "UTC0", 1)
                tzset()
                setenv("TZ", ":" + path, 1)
                tzset()
                return sample(span)
            }
        }
    }

    /// The offsets glibc gives, sampled every 12 hours (no zone changes twice in a day); each change is narrowed to its second.
    private static func sample(_ span: Range<Int>) -> ZoneTable {
        func offset(_ instant: Int) -> Int {
            var time = time_t(instant)
            var parts = tm()
            _ = localtime_r(&time, &parts)
            return parts.tm_gmtoff
        }
        let step = 12 * 3600
        let initial = offset(span.lowerBound)
        var transitions: [(at: Int, offset: Int)] = []
        var previous = (at: span.lowerBound, offset: initial)
        var instant = span.lowerBound + step
        while instant < span.upperBound {
            let current = offset(instant)
            if current != previous.offset {
                var low = previous.at  // on the old offset
                var high = instant  // on the new one
                while high - low > 1 {
                    let middle = low + (high - low) / 2
                    if offset(middle) == previous.offset { low = middle } else { high = middle }
                }
                transitions.append((high, current))
            }
            previous = (instant, current)
            instant += step
        }
        return ZoneTable(initialOffset: initial, transitions: transitions)
    }
}
