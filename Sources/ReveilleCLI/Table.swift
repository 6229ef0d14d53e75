/// A plain-text table with left-aligned columns, two spaces apart.
struct Table {
    private var rows: [[String]]

    init(_ headers: String...) {
        rows = [headers]
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    var isEmpty: Bool { rows.count <= 1 }

    func render() -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            let line = row.indices.map { index -> String in
                let cell = row[index]
                return index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }
}
