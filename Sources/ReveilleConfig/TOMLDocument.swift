import TOMLKit

/// A parsed TOML file with typed reads that fail with the file, the line and what to do.
///
/// TOMLKit gives parse errors a position but not values, so a value's line is found in the text:
/// the line where `key =` appears under its `[section]` header.
public struct TOMLDocument {
    public let path: String
    public let root: TOMLTable
    private let lines: [Substring]
    /// The lines (0-based) of each `[[array]]` table, in order, header first: found once, so that
    /// naming the line of each of thousands of tables costs the table's lines, not the file's.
    private let arrayTables: [String: [Range<Int>]]

    /// Parses `text` (TOMLTable(string:)); a syntax error names its line.
    public init(path: String, text: String) throws(ConfigError) {
        self.path = path
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        self.arrayTables = Self.arrayTables(lines)
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, message: error.description)
        } catch {
            throw ConfigError(path: path, line: nil, message: "\(error)")
        }
    }

    /// The line of `key` in `[section]` (nil: the top level), or of the section header itself.
    public func line(of key: String?, in section: String?) -> Int? {
        var current: String? = nil
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmed(newlines: false)
            if line.hasPrefix("[") {
                current = String(line.drop(while: { $0 == "[" }).prefix(while: { $0 != "]" }))
                    .trimmed(newlines: false)
                if key == nil, current == section { return index + 1 }
                // A top-level key written as a table (`[audio]`, `[[apps]]`) is on its header.
                if section == nil, let key, current == key { return index + 1 }
                continue
            }
            guard let key, current == section, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).trimmed(newlines: false)
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }

    /// The line of `key` in the `index`th `[[array]]` table (nil `key`: its header).
    public func line(of key: String?, inArray array: String, index: Int) -> Int? {
        guard let tables = arrayTables[array], index < tables.count else { return nil }
        let table = tables[index]
        guard let key else { return table.lowerBound + 1 }
        for number in table.dropFirst() {
            let line = lines[number].trimmed(newlines: false)
            guard line.hasPrefix(key) else { continue }
            if line.dropFirst(key.count).trimmed(newlines: false).hasPrefix("=") { return number + 1 }
        }
        return table.lowerBound + 1
    }

    /// Where each `[[array]]` table's lines are: from its header to the next header that is not
    /// one of its own sub-tables (`[app.limits]`).
    private static func arrayTables(_ lines: [Substring]) -> [String: [Range<Int>]] {
        var tables: [String: [Range<Int>]] = [:]
        var open: (name: String, start: Int)?
        func close(at end: Int) {
            if let table = open { tables[table.name, default: []].append(table.start..<end) }
            open = nil
        }
        for (number, raw) in lines.enumerated() {
            let line = raw.trimmed(newlines: false)
            if line.hasPrefix("[[") {
                close(at: number)
                open = (String(line.dropFirst(2).prefix(while: { $0 != "]" }).trimmed(newlines: false)), number)
            } else if line.hasPrefix("[") {
                let name = line.dropFirst().prefix(while: { $0 != "]" }).trimmed(newlines: false)
                if let table = open, !name.hasPrefix(table.name + ".") { close(at: number) }
            }
        }
        close(at: lines.count)
        return tables
    }

    /// An error about `key` in `section`, at its line.
    public func error(_ key: String?, in section: String?, _ message: String) -> ConfigError {
        let name = [section.map { "[\($0)]" }, key].compactMap { $0 }.joined(separator: " ")
        return ConfigError(path: path, line: line(of: key, in: section), message: "\(name): \(message)")
    }

    /// Refuses keys not in `known`: a misspelt setting would otherwise be ignored without a word.
    public func checkKeys(_ table: TOMLTable, in section: String?, known: [String]) throws(ConfigError) {
        for key in table.keys.sorted() where !known.contains(key) {
            throw error(
                key, in: section,
                "unknown setting; known here: \(known.joined(separator: ", "))")
        }
    }

    public func string(_ table: TOMLTable, _ key: String, in section: String?) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else { throw error(key, in: section, "must be a string in double quotes") }
        return text
    }

    public func int(_ table: TOMLTable, _ key: String, in section: String?, range: ClosedRange<Int>) throws(ConfigError)
        -> Int?
    {
        guard let value = table[key] else { return nil }
        guard let number = value.int else { throw error(key, in: section, "must be a whole number") }
        guard range.contains(number) else {
            throw error(key, in: section, "\(number) is out of range; use \(range.lowerBound)-\(range.upperBound)")
        }
        return number
    }

    public func bool(_ table: TOMLTable, _ key: String, in section: String?) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.bool else { throw error(key, in: section, "must be true or false") }
        return flag
    }

    public func strings(_ table: TOMLTable, _ key: String, in section: String?) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            throw error(key, in: section, "must be a list of strings, like [\"plughw:CARD=Device\", \"default\"]")
        }
        var result: [String] = []
        for element in array {
            guard let text = element.string else {
                throw error(key, in: section, "must be a list of strings, like [\"plughw:CARD=Device\", \"default\"]")
            }
            result.append(text)
        }
        return result
    }

    public func table(_ key: String) throws(ConfigError) -> TOMLTable? {
        guard let value = root[key] else { return nil }
        guard let table = value.table else { throw error(key, in: nil, "must be a section: [\(key)]") }
        return table
    }
}

import FoundationEssentials
import Glibc
import ReveilleCore
