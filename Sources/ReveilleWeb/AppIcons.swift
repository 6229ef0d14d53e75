import ReveilleSystem

/// An installed app's icon for the app sheet's header (the per-app design): the icon its
/// `.desktop` entry names, found in the icon theme's folders (hicolor, largest first) or in
/// `pixmaps`, as PNG or SVG. Only a plain name is looked up (no path, no `..`); the file is read
/// as a regular file (never a FIFO or a device) and at most `maxBytes`.
public struct AppIcons: Sendable {
    /// The folders looked in, in order, each holding `NAME.svg` or `NAME.png`.
    let folders: [String]

    public static let maxBytes = 256 * 1024

    /// The system's folders, under `root` (`Paths.system`).
    public init(system: (String) -> String) {
        let sizes = ["scalable", "512x512", "256x256", "128x128", "96x96", "64x64", "48x48", "32x32"]
        folders =
            sizes.map { system("/usr/share/icons/hicolor/\($0)/apps") }
            + sizes.map { system("/usr/local/share/icons/hicolor/\($0)/apps") }
            + [system("/usr/share/pixmaps")]
    }

    /// Whether `name` is an icon's name as a `.desktop` file gives one (`org.example.Game`,
    /// `firefox-esr`), nothing a path could be made of.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._+-".unicodeScalars.contains($0))
            }
    }

    /// The icon `name`: its bytes and media type, or nil when there is none (or it is too large).
    public func icon(named name: String) -> (bytes: [UInt8], type: String)? {
        guard Self.isName(name) else { return nil }
        for folder in folders {
            for (suffix, type) in [(".svg", "image/svg+xml"), (".png", "image/png")] {
                guard let bytes = RegularFile.head(folder + "/" + name + suffix, count: Self.maxBytes + 1) else {
                    continue
                }
                guard bytes.count <= Self.maxBytes, !bytes.isEmpty else { return nil }
                return (bytes, type)
            }
        }
        return nil
    }
}
