import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore

extension Mounts {
    /// This process's mount table.
    public static func read() -> [Mount] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return parse(text)
    }

    /// The `major:minor` of the file system `path` lies on now (stat), as mountinfo writes it.
    public static func device(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let device = UInt64(info.st_dev)
        let major = (device >> 8) & 0xFFF | (device >> 32) & ~UInt64(0xFFF)
        let minor = device & 0xFF | (device >> 12) & ~UInt64(0xFF)
        return "\(major):\(minor)"
    }
}
