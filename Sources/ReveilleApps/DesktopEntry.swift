import ReveilleCore

/// An installed application, as its freedesktop `.desktop` file describes it (the Desktop Entry
/// Specification): what the app picker offers a parent (docs/guide/apps.md, "Setting up apps"). Pure: the
/// file's text comes in; finding the program on disk is the caller's, through `resolve`.
public struct DesktopEntry: Sendable, Hashable {
    /// The file's name: `org.example.Game.desktop`.
    public let id: String
    public let name: String
    /// The icon's name in the icon theme, or a file's path.
    public let icon: String?
    /// The command line, as the file has it.
    public let exec: String
    public let comment: String?

    /// At most this much of a file is read.
    public static let maxBytes = 64 * 1024

    /// The entry in `text`, or nil when it is not one a person would pick: not an application, hidden,
    /// or without a name or a command.
    public static func parse(id: String, text: String) -> DesktopEntry? {
        var inMain = false
        var values: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmed(newlines: false)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inMain = line == "[Desktop Entry]"
                continue
            }
            guard inMain, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmed(newlines: false)
            // The untranslated value: the picker speaks the clock's language, not the file's dozens.
            guard !key.contains("["), values[key] == nil else { continue }
            values[key] = unescape(line[line.index(after: equals)...].trimmed(newlines: false))
        }
        guard values["Type"] == "Application", values["NoDisplay"] != "true", values["Hidden"] != "true",
            let name = values["Name"].map(Sanitized.line), !name.isEmpty,
            let exec = values["Exec"], !exec.isEmpty
        else { return nil }
        return DesktopEntry(
            id: id, name: String(name.prefix(64)), icon: values["Icon"].map { String(Sanitized.line($0).prefix(200)) },
            exec: exec, comment: values["Comment"].map { String(Sanitized.line($0).prefix(200)) })
    }

    /// The string escapes of a value (`\s`, `\n`, `\t`, `\r`, `\\`).
    static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var escaped = false
        for character in value {
            if escaped {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The command line's words: double quotes group, a backslash in them escapes the next
    /// character, and field codes (`%U`, `%f`, ...) are dropped (`%%` is a percent sign).
    public static func words(of exec: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escaped = false
        for character in exec {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words.compactMap { word -> String? in
            guard word.contains("%") else { return word }
            var kept = ""
            var percent = false
            for character in word {
                if percent {
                    if character == "%" { kept.append("%") }  // else a field code, dropped
                    percent = false
                } else if character == "%" {
                    percent = true
                } else {
                    kept.append(character)
                }
            }
            return kept.isEmpty ? nil : kept
        }
    }

    /// What the guard would see start when this entry is opened.
    public enum Program: Sendable, Hashable {
        /// This executable (a path, symbolic links not followed: the file behind them is read).
        case file(String)
        /// It cannot be limited on its own, and why.
        case unlimitable(String)
    }

    /// The program of this entry. `resolve` finds a command's path: a name is searched for on
    /// `PATH`, a path is checked; nil when there is no executable there. `flatpakCommand` reads a
    /// Flatpak app's `metadata` for the command it runs (nil when it is not installed system-wide).
    public func program(
        resolve: (String) -> String?, flatpakCommand: (String) -> String?
    ) -> Program {
        var words = DesktopEntry.words(of: exec)
        // `env VAR=value program`: the program is what env starts.
        if let first = words.first, first == "env" || first.hasSuffix("/env") {
            words.removeFirst()
            while let word = words.first, word.contains("="), !word.hasPrefix("/") { words.removeFirst() }
        }
        guard let command = words.first else { return .unlimitable("its Exec line names no program") }
        let base = command.split(separator: "/").last.map(String.init) ?? command
        if base == "flatpak", words.contains("run") {
            let appID = words.drop { $0 != "run" }.dropFirst().first { !$0.hasPrefix("-") } ?? ""
            let own = words.first { $0.hasPrefix("--command=") }.map { String($0.dropFirst("--command=".count)) }
            guard let program = own ?? flatpakCommand(appID), !program.isEmpty,
                !program.contains("/") || program.hasPrefix("/app/")
            else {
                return .unlimitable(
                    "a Flatpak app installed for one user, or one whose command could not be read: type its program's path"
                )
            }
            let name = program.hasPrefix("/app/") ? String(program.dropFirst("/app/".count)) : "bin/" + program
            let path = "/var/lib/flatpak/app/\(appID)/current/active/files/\(name)"
            guard let found = resolve(path) else {
                return .unlimitable("a Flatpak app whose program \(path) is not there")
            }
            return .file(found)
        }
        if command.hasPrefix("/snap/bin/") || base == "snap" {
            return .unlimitable(
                "a snap: its program lies in the snap's image under /snap/\(base == "snap" ? "NAME" : base)/current/, which the snap's confinement starts; type that path"
            )
        }
        guard let found = resolve(command) else {
            return .unlimitable("its program \(command) is not installed or not executable")
        }
        return .file(found)
    }
}
