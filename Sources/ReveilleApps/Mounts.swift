import ReveilleCore

/// A mount, as /proc/self/mountinfo lists it. Which file systems programs can be executed from:
/// every one not mounted `noexec`, except the kernel's own (proc, sysfs, cgroup...), where nobody
/// puts a program.
public struct Mount: Hashable, Sendable {
    /// `major:minor`: one per file system (super block), shared by all its mounts.
    public var device: String
    public var mountPoint: String
    public var type: String
    public var noexec: Bool

    public init(device: String, mountPoint: String, type: String, noexec: Bool) {
        self.device = device
        self.mountPoint = mountPoint
        self.type = type
        self.noexec = noexec
    }
}

public enum Mounts {
    public static let path = "/proc/self/mountinfo"

    /// File system types that hold no programs.
    static let kernelTypes: Set<String> = [
        "proc", "sysfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs", "securityfs", "pstore",
        "bpf", "configfs", "fusectl", "hugetlbfs", "autofs", "binfmt_misc", "efivarfs", "rpc_pipefs", "nsfs",
    ]

    /// Parses mountinfo: `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw`.
    public static func parse(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 7, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { return nil }
            let options = fields[5].split(separator: ",")
            return Mount(
                device: String(fields[2]), mountPoint: unescape(fields[4]), type: String(fields[dash + 1]),
                noexec: options.contains("noexec"))
        }
    }

    /// One mount of each file system that programs can be executed from, in mount order (a file
    /// system mark covers all its mounts, in every mount namespace).
    public static func executable(_ mounts: [Mount]) -> [Mount] {
        var seen: Set<String> = []
        var chosen: [Mount] = []
        for mount in mounts where !mount.noexec && !kernelTypes.contains(mount.type) {
            if seen.insert(mount.device).inserted { chosen.append(mount) }
        }
        return chosen
    }

    /// The mount `path` lies on: the longest mount point that is a prefix of it (the last mounted
    /// of those stacked on one point).
    public static func mount(of path: String, in mounts: [Mount]) -> Mount? {
        var found: Mount?
        for mount in mounts
        where path == mount.mountPoint || mount.mountPoint == "/"
            || path.hasPrefix(mount.mountPoint.hasSuffix("/") ? mount.mountPoint : mount.mountPoint + "/")
        {
            if mount.mountPoint.count >= (found?.mountPoint.count ?? 0) { found = mount }
        }
        return found
    }

    /// mountinfo writes space, tab, newline and backslash as `\040`-style octal escapes.
    static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
