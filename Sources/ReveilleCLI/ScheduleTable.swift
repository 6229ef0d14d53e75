import ReveilleCore
import ReveilleProtocol

/// Lays out `reveille next` straight from the report's bytes. A year of 200 alarms is tens of
/// thousands of rows; building a String per cell made this the slowest part of the command.
enum ScheduleTable {
    /// One entry of a day, as ranges into that day's bytes.
    private struct Entry {
        /// nil: the alarm's own time.
        var time: Range<Int>?
        var alarmID: Int
        var layer: Range<Int>
        var rings: Bool
        var note: Range<Int>
    }

    static func render(_ report: ScheduleReport) -> [UInt8] {
        var names: [Int: (bytes: [UInt8], width: Int)] = [:]
        for (key, label) in report.labels {
            guard let id = Int(key) else { continue }
            let name = Alarm.name(id: id, label: label)
            names[id] = (Array(name.utf8), name.displayWidth)
        }
        var ownTimes: [Int: [UInt8]] = [:]
        for (key, time) in report.times {
            if let id = Int(key) { ownTimes[id] = Array(time.utf8) }
        }
        let days = report.days.map { day in (day, Array(day.lines.utf8)) }

        // First pass: column widths.
        var timeWidth = 4  // TIME
        var alarmWidth = 5  // ALARM
        var layerWidth = 10  // DECIDED BY
        for (_, bytes) in days {
            forEachEntry(bytes) { entry in
                timeWidth = max(timeWidth, entry.time?.count ?? ownTimes[entry.alarmID]?.count ?? 1)
                alarmWidth = max(alarmWidth, names[entry.alarmID]?.width ?? digits(entry.alarmID) + 1)
                layerWidth = max(layerWidth, entry.layer.count)
            }
        }

        // Pieces that repeat are laid out once: per alarm its padded name, per layer its padded
        // name, per day its date and weekday. A row is then a handful of appends.
        func padded(_ text: [UInt8], width: Int, shown: Int? = nil) -> [UInt8] {
            text + [UInt8](repeating: 0x20, count: max(0, width - (shown ?? text.count)) + 2)
        }
        var paddedNames: [Int: [UInt8]] = [:]
        for (id, name) in names { paddedNames[id] = padded(name.bytes, width: alarmWidth, shown: name.width) }
        // Layer names (base, rule, override, holiday, paused, disabled, zone) differ in their first byte.
        var paddedLayers = [[UInt8]?](repeating: nil, count: 256)
        let dash = padded([0x2D], width: timeWidth)
        let silent = Array("silent: ".utf8)
        let baseName = Array("base".utf8)
        let timePadding = [UInt8](repeating: 0x20, count: timeWidth + 2)
        var paddedTimes: [Int: [UInt8]] = [:]
        for (id, time) in ownTimes { paddedTimes[id] = padded(time, width: timeWidth) }

        var output = ByteWriter(capacity: days.reduce(0) { $0 + $1.1.count * 3 } + 64)
        output.append(padded(Array("DATE".utf8), width: 10) + padded(Array("DAY".utf8), width: 3))
        output.append(padded(Array("TIME".utf8), width: timeWidth) + padded(Array("ALARM".utf8), width: alarmWidth))
        output.endLine(Array("DECIDED BY".utf8))

        for (day, bytes) in days {
            let prefix = padded(Array(day.date.utf8), width: 10) + padded(Array(day.weekday.utf8), width: 3)
            if bytes.isEmpty {
                output.append(prefix + dash + padded([0x2D], width: alarmWidth) + padded([0x2D], width: layerWidth))
                output.endLine(Array((day.note ?? "").utf8))
                continue
            }
            forEachEntry(bytes) { entry in
                output.append(prefix)
                // A silent day shows the time it would have rung at; "silent: " and why follow.
                if let time = entry.time {
                    output.append(bytes, time)
                    output.append(timePadding, 0..<(timeWidth + 2 - time.count))
                } else {
                    output.append(paddedTimes[entry.alarmID] ?? dash)
                }
                output.append(
                    paddedNames[entry.alarmID] ?? padded(Array("#\(entry.alarmID)".utf8), width: alarmWidth))
                let key = entry.layer.isEmpty ? Int(baseName[0]) : Int(bytes[entry.layer.lowerBound])
                if paddedLayers[key] == nil {
                    paddedLayers[key] = padded(
                        entry.layer.isEmpty ? baseName : Array(bytes[entry.layer]), width: layerWidth)
                }
                output.append(paddedLayers[key]!)
                if !entry.rings { output.append(silent) }
                output.endLine(bytes, entry.note)
            }
        }
        return output.finish()
    }

    /// Splits `time|id|layer|r|note;...` without making strings or arrays.
    private static func forEachEntry(_ bytes: [UInt8], _ body: (Entry) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                var end = start
                while end < buffer.count, buffer[end] != 0x3B { end += 1 }  // ;
                // The first four `|` end time, id, layer and r/s; the note runs to the `;`.
                var cuts = (start - 1, start - 1, start - 1, start - 1)
                var found = 0
                var index = start
                while index < end, found < 4 {
                    if buffer[index] == 0x7C {
                        switch found {
                        case 0: cuts.0 = index
                        case 1: cuts.1 = index
                        case 2: cuts.2 = index
                        default: cuts.3 = index
                        }
                        found += 1
                    }
                    index += 1
                }
                if found == 0 {
                    var id = 0
                    for position in start..<end where (0x30...0x39).contains(buffer[position]) {
                        id = id * 10 + Int(buffer[position] - 0x30)
                    }
                    body(Entry(time: nil, alarmID: id, layer: end..<end, rings: true, note: end..<end))
                } else if found == 4 {
                    var id = 0
                    for position in (cuts.0 + 1)..<cuts.1 where (0x30...0x39).contains(buffer[position]) {
                        id = id * 10 + Int(buffer[position] - 0x30)
                    }
                    body(
                        Entry(
                            time: start..<cuts.0, alarmID: id, layer: (cuts.1 + 1)..<cuts.2,
                            rings: buffer[cuts.2 + 1] == 0x72, note: (cuts.3 + 1)..<end))
                }
                start = end + 1
            }
        }
    }

    private static func digits(_ value: Int) -> Int { String(value).count }
}

/// A growable byte buffer that appends with `memcpy`. The schedule table makes hundreds of
/// thousands of small appends; `Array.append(contentsOf:)` spent more on bookkeeping than on copying.
struct ByteWriter: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        storage.deallocate()
    }

    mutating func append(_ source: [UInt8], _ range: Range<Int>? = nil) {
        let range = range ?? source.indices
        reserve(range.count)
        source.withUnsafeBufferPointer { buffer in
            (storage + count).update(from: buffer.baseAddress! + range.lowerBound, count: range.count)
        }
        count += range.count
    }

    /// The last column, trailing spaces trimmed, and the newline.
    mutating func endLine(_ source: [UInt8], _ range: Range<Int>? = nil) {
        append(source, range)
        while count > 0, storage[count - 1] == 0x20 { count -= 1 }
        reserve(1)
        storage[count] = 0x0A
        count += 1
    }

    /// The bytes written, as an array.
    consuming func finish() -> [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: storage, count: count)
        storage.deallocate()
        storage = bigger
        capacity = grown
    }
}
