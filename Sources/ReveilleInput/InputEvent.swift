/// One `struct input_event` as the kernel writes it to an evdev device: a time (two machine
/// words, ignored: the daemon stamps events with its own monotonic clock), type, code, value.
public struct InputEvent: Equatable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    /// EV_SYN and EV_KEY.
    public static let synchronization: UInt16 = 0
    public static let key: UInt16 = 1

    /// The record's size: 24 bytes on 64-bit machines, 16 on 32-bit ones (Raspberry Pi OS's armhf).
    public static let size = 2 * MemoryLayout<Int>.size + 8

    public init(type: UInt16, code: UInt16, value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }

    /// The record as the kernel would write it (time zero), for tests and benchmarks that feed a
    /// pipe in place of a device.
    public var bytes: [UInt8] {
        var record = [UInt8](repeating: 0, count: InputEvent.size)
        let offset = 2 * MemoryLayout<Int>.size
        withUnsafeBytes(of: type.littleEndian) { record.replaceSubrange(offset..<(offset + 2), with: $0) }
        withUnsafeBytes(of: code.littleEndian) { record.replaceSubrange((offset + 2)..<(offset + 4), with: $0) }
        withUnsafeBytes(of: value.littleEndian) { record.replaceSubrange((offset + 4)..<(offset + 8), with: $0) }
        return record
    }
}

/// Cuts a byte stream into `InputEvent`s. A real evdev device hands out whole records; a pipe may
/// not, so a partial record waits for the rest. Garbage decodes as events of types and codes no
/// key map contains, which the reader ignores.
public struct InputEventDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Bytes held back: the start of a record not yet complete.
    public var partialBytes: Int { pending.count }

    public mutating func feed(_ bytes: some Collection<UInt8>) -> [InputEvent] {
        pending.append(contentsOf: bytes)
        let whole = pending.count / InputEvent.size
        guard whole > 0 else { return [] }
        let offset = 2 * MemoryLayout<Int>.size
        var events: [InputEvent] = []
        events.reserveCapacity(whole)
        pending.withUnsafeBytes { raw in
            for index in 0..<whole {
                let base = index * InputEvent.size + offset
                events.append(
                    InputEvent(
                        type: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt16.self)),
                        code: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: base + 2, as: UInt16.self)),
                        value: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 4, as: Int32.self))))
            }
        }
        pending.removeFirst(whole * InputEvent.size)
        return events
    }

    /// The device went away: a partial record will never be completed.
    public mutating func reset() { pending.removeAll() }
}
