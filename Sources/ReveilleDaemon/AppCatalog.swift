import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// The app picker's list (docs/guide/apps.md, "Setting up apps"): the machine's installed applications, from
/// their `.desktop` files, each with the program the guard would see start (`DesktopEntry`), and
/// the app of the policy that already names it. Reads root's files only; bounded in files and bytes.
struct AppCatalog {
    let paths: Paths

    /// At most this many `.desktop` files are read (a desktop has a few hundred).
    static let maxFiles = 2000
    /// Where a command without a slash is looked for, in this order.
    static let searchPath = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/games", "/usr/games"]

    /// `listed`: each app of the policy with its paths.
    func installed(listed: [(name: String, paths: [String])]) -> [InstalledApp] {
        var seen: Set<String> = []
        var files: [(id: String, path: String)] = []
        for folder in paths.applicationFolders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            for name in names where name.hasSuffix(".desktop") && files.count < Self.maxFiles {
                // The first folder's file of a name wins, as the XDG data directories' order says.
                if seen.insert(name).inserted { files.append((name, folder + "/" + name)) }
            }
        }
        let limited = listed.flatMap { app in app.paths.map { (identity($0), app.name) } }
        return files.compactMap { file -> InstalledApp? in
            guard let text = try? SmallFile.read(file.path, maxBytes: DesktopEntry.maxBytes),
                let entry = DesktopEntry.parse(id: file.id, text: text)
            else { return nil }
            var app = InstalledApp(id: entry.id, name: entry.name, icon: entry.icon, comment: entry.comment)
            switch entry.program(resolve: resolve, flatpakCommand: flatpakCommand) {
            case .file(let path):
                app.program = path
                if isScript(path) {
                    app.note =
                        "a launcher script: the guard knows it by its content, but the program it starts may need listing too"
                }
                let id = identity(path)
                app.limitedAs = limited.first { $0.0 == id }?.1
            case .unlimitable(let why):
                app.note = why
            }
            return app
        }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// The executable regular file a command names, under the root; nil when there is none.
    func resolve(_ command: String) -> String? {
        let candidates =
            command.hasPrefix("/")
            ? [paths.system(command)]
            : command.contains("/") ? [] : Self.searchPath.map { paths.system($0 + "/" + command) }
        return candidates.first(where: RegularFile.isExecutable)
    }

    /// The command a system-wide Flatpak app runs, from its `metadata`.
    func flatpakCommand(_ appID: String) -> String? {
        guard !appID.isEmpty, appID.count <= 255,
            appID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
            !appID.hasPrefix(".")
        else { return nil }
        let metadata = paths.system("/var/lib/flatpak/app/\(appID)/current/active/metadata")
        guard let text = try? SmallFile.read(metadata, maxBytes: DesktopEntry.maxBytes) else { return nil }
        return text.split(whereSeparator: \.isNewline).lazy.map { $0.trimmed(newlines: false) }
            .first { $0.hasPrefix("command=") }.map { String($0.dropFirst("command=".count)) }
    }

    /// A file as the guard tells files apart here: its device and inode (a symbolic link or
    /// another path to the same file is the same program); the path when it cannot be read.
    private func identity(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(info.st_dev):\(info.st_ino)"
    }

    private func isScript(_ path: String) -> Bool {
        RegularFile.head(path, count: 2) == Array("#!".utf8)
    }
}
