import Glibc

/// A folder's entries by name.
public enum Folder {
    /// The names in `path` (not `.` and `..`, nor other hidden ones), sorted; empty when it cannot
    /// be read.
    public static func names(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }
}
