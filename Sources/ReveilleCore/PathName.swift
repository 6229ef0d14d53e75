/// A path's parts, taken from its text alone (nothing on disk is asked), as Foundation's
/// `NSString` path methods did.
public enum PathName {
    /// The folder part: `/a/b/c` → `/a/b`, `/a` → `/`, `c` → ``, `/a/b/` → `/a`.
    public static func folder(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty && trimmed.hasPrefix("/") ? "/" : folder
    }

    /// The last part: `/a/b/c` → `c`, `/a/b/` → `b`, `/` → `/`.
    public static func last(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }

    /// Without `.`, `..` (resolved by the text: `/a/../b` → `/b`), repeated and trailing slashes.
    public static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let previous = parts.last, previous != ".." {
                parts.removeLast()
            } else if part == ".." && path.hasPrefix("/") {
                continue
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }
}
