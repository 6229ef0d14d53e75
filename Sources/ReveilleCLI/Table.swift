import CReveilleShims
import FoundationEssentials
import Glibc
import ReveilleSystem

/// A plain-text table with left-aligned columns, two spaces apart, trailing spaces trimmed.
/// Built as bytes: `next --days 365` lays out tens of thousands of rows.
struct Table {
    private var rows: [[String]]

    init(_ headers: String...) {
        rows = [headers]
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    mutating func add(cells: [String]) {
        rows.append(cells)
    }

    /// The table, each line ending in a newline.
    func bytes() -> [UInt8] {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.displayWidth)
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(rows.count * (widths.reduce(0, +) + 2 * widths.count))
        for row in rows {
            let lineStart = output.count
            for (index, cell) in row.enumerated() {
                output.append(contentsOf: cell.utf8)
                if index < row.count - 1 {
                    output.append(contentsOf: repeatElement(0x20, count: widths[index] - cell.displayWidth + 2))
                }
            }
            while output.count > lineStart, output.last == 0x20 { output.removeLast() }
            output.append(0x0A)
        }
        return output
    }

    /// Writes the table to standard output in one go.
    func print() {
        Stdio.out(Data(bytes()))
    }
}

extension String {
    /// Columns taken on a terminal: the byte count for ASCII; otherwise glibc's wcwidth for each
    /// character's first scalar (2 for CJK and emoji, 0 for combining marks), read in the C.UTF-8
    /// locale whatever the user's (in plain C it knows no character beyond ASCII).
    var displayWidth: Int {
        if utf8.allSatisfy({ $0 < 0x80 }) { return utf8.count }
        return reduce(0) { total, character in
            guard let first = character.unicodeScalars.first else { return total }
            // An emoji written with its presentation selector is wide even where wcwidth says 1.
            if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return total + 2 }
            return total + max(0, Int(RV_wcwidth(first.value)))
        }
    }
}
