import Foundation
import Glibc
import ReveilleProtocol

/// The system's time zone, read afresh each time: `$TZ`, else the target of the zone link
/// (`/etc/localtime`, a link into /usr/share/zoneinfo as timedatectl and raspi-config set it), else
/// `/etc/timezone`, else UTC.
enum SystemZone {
    /// The link that names the zone: `DIR/etc/localtime` when running under `--root DIR` and that
    /// link exists (development and tests), else `/etc/localtime`.
    static func link(for paths: Paths) -> String {
        let own = paths.root + "/etc/localtime"
        var info = stat()
        return !paths.isSystem && lstat(own, &info) == 0 ? own : "/etc/localtime"
    }

    static func current(link: String = "/etc/localtime") -> TimeZone {
        if let name = ProcessInfo.processInfo.environment["TZ"]?.trimmingCharacters(
            in: CharacterSet(charactersIn: ":")),
            let zone = TimeZone(identifier: name)
        {
            return zone
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(link, &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.range(of: "zoneinfo/"),
                let zone = TimeZone(identifier: String(target[range.upperBound...]))
            {
                return zone
            }
        }
        if let name = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines),
            let zone = TimeZone(identifier: name)
        {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
