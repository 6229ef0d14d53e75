import CTestSupport
import Foundation
import Glibc
import Synchronization

/// An emulated NXP PN532 NFC chip on a pseudo-terminal, for libnfc's `pn532_uart` driver.
///
/// It speaks the chip's host frame protocol (`00 00 FF LEN LCS D4 CMD DATA DCS 00`, answered by an
/// ACK frame and a `D5 CMD+1` frame), answers the commands libnfc sends when it opens the device
/// and while it polls, and presents a tag (an ISO 14443-A UID) when told to. Real libnfc talks to
/// it as to a chip on a serial port: name `link` in a `pn532_uart:` connstring.
///
/// `unplug()` closes the pseudo-terminal and removes `link` (the reader disappears: libnfc's reads fail);
/// `plugIn()` opens a new one and points `link` at it (the reader is back, as udev's symlink would
/// follow a re-plugged USB serial adapter). `corruptNextResponses(n)` sends broken frames.
public final class PN532Emulator: @unchecked Sendable {
    /// A stable path to the current pseudo-terminal's slave side.
    public let link: String
    private let state = Mutex(State())
    private var thread: Thread?

    private struct State {
        var master: Int32 = -1
        /// Our own descriptor on the slave side, so that the master never reads EIO while libnfc
        /// has the device closed.
        var slave: Int32 = -1
        var uid: [UInt8]?
        var corruptResponses = 0
        var stopping = false
        var generation = 0
        /// Commands received, by code, for tests that want to see libnfc's traffic.
        var commands: [UInt8] = []
        /// Looks at the field answered (InListPassiveTarget, InAutoPoll).
        var polls = 0
    }

    /// Creates the first pseudo-terminal and links `link` to it.
    public init(link: String) throws {
        self.link = link
        try plugIn()
    }

    deinit { unplug() }

    /// Puts a tag on the reader (replacing any).
    public func present(uid: [UInt8]) { state.withLock { $0.uid = uid } }

    /// Takes the tag away.
    public func removeTag() { state.withLock { $0.uid = nil } }

    /// The next `count` responses are garbage: wrong checksums, then random bytes.
    public func corruptNextResponses(_ count: Int) { state.withLock { $0.corruptResponses = count } }

    /// Waits until the reader has looked at the field `count` more times, with the tag as it is
    /// now: time passing counted in the reader's own polls, not in seconds of a sleep.
    public func awaitPolls(_ count: Int, within seconds: Double = 10) -> Bool {
        let target = state.withLock { $0.polls } + count
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if state.withLock({ $0.polls }) >= target { return true }
            usleep(5_000)
        }
        return false
    }

    /// Waits until the garbage asked for by `corruptNextResponses` has all been sent.
    public func awaitCorruptResponsesSent(within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if state.withLock({ $0.corruptResponses }) == 0 { return true }
            usleep(5_000)
        }
        return false
    }

    /// The command codes received so far.
    public var commandsReceived: [UInt8] { state.withLock { $0.commands } }

    /// Opens a new pseudo-terminal, points `link` at it and starts answering.
    public func plugIn() throws {
        var name = [CChar](repeating: 0, count: 128)
        let master = RVT_open_pty(&name, name.count)
        guard master >= 0 else {
            throw EmulatorError("cannot create a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: name)
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw EmulatorError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        unlink(link)
        guard symlink(path, link) == 0 else {
            throw EmulatorError("cannot link \(link) to \(path): \(String(cString: strerror(errno)))")
        }
        let generation = state.withLock { state in
            state.master = master
            state.slave = slave
            state.stopping = false
            state.generation += 1
            return state.generation
        }
        let thread = Thread { [self] in serve(master: master, generation: generation) }
        thread.name = "pn532-emulator"
        thread.start()
        self.thread = thread
    }

    /// Closes the pseudo-terminal and removes `link`: the reader is gone, and so is its node, as
    /// udev removes it. (A dangling link would not do: the kernel gives the freed pseudo-terminal's
    /// number to the next one opened, perhaps another test's emulator, and the daemon would find a
    /// reader there.)
    public func unplug() {
        let (master, slave) = state.withLock { state -> (Int32, Int32) in
            state.stopping = true
            defer {
                state.master = -1
                state.slave = -1
            }
            return (state.master, state.slave)
        }
        unlink(link)
        if master >= 0 { close(master) }
        if slave >= 0 { close(slave) }
    }

    // MARK: The chip

    private func isCurrent(_ generation: Int) -> Bool {
        state.withLock { !$0.stopping && $0.generation == generation }
    }

    private func serve(master: Int32, generation: Int) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while isCurrent(generation) {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            guard isCurrent(generation) else { return }
            if ready <= 0 { continue }
            let count = read(master, &chunk, chunk.count)
            if count <= 0 {
                usleep(10_000)
                continue
            }
            buffer.append(contentsOf: chunk[0..<count])
            while let frame = PN532Emulator.takeFrame(&buffer) {
                switch frame {
                case .ack:
                    continue  // the host aborts a pending command: nothing pending here
                case .nack:
                    continue
                case .command(let command, let data):
                    state.withLock { $0.commands.append(command) }
                    respond(to: command, data, master: master, generation: generation)
                }
            }
        }
    }

    enum Frame {
        case ack
        case nack
        case command(UInt8, [UInt8])
    }

    /// Takes the first complete frame out of `buffer`, dropping the wake-up preamble and noise
    /// before it; nil when no complete frame is there yet.
    static func takeFrame(_ buffer: inout [UInt8]) -> Frame? {
        while true {
            guard let start = buffer.indices.dropLast().first(where: { buffer[$0] == 0x00 && buffer[$0 + 1] == 0xFF })
            else {
                if buffer.count > 1 { buffer.removeFirst(buffer.count - 1) }
                return nil
            }
            buffer.removeFirst(start)
            guard buffer.count >= 4 else { return nil }
            let length = buffer[2]
            let lengthChecksum = buffer[3]
            if length == 0x00 && lengthChecksum == 0xFF {
                buffer.removeFirst(4)
                return .ack
            }
            if length == 0xFF && lengthChecksum == 0x00 {
                buffer.removeFirst(4)
                return .nack
            }
            guard UInt8(truncatingIfNeeded: Int(length) + Int(lengthChecksum)) == 0, length >= 2 else {
                buffer.removeFirst(2)  // not a frame start: look further
                continue
            }
            let total = 4 + Int(length) + 1
            guard buffer.count >= total else { return nil }
            let body = Array(buffer[4..<(4 + Int(length))])
            let checksum = buffer[4 + Int(length)]
            buffer.removeFirst(total)
            guard body[0] == 0xD4, UInt8(truncatingIfNeeded: body.reduce(0) { $0 + Int($1) } + Int(checksum)) == 0
            else { continue }
            return .command(body[1], Array(body.dropFirst(2)))
        }
    }

    private func respond(to command: UInt8, _ data: [UInt8], master: Int32, generation: Int) {
        let reply: [UInt8]?
        switch command {
        case 0x00: reply = data  // Diagnose: test 0 (communication line) echoes itself and its data
        case 0x02: reply = [0x32, 0x01, 0x06, 0x07]  // GetFirmwareVersion: PN532 v1.6
        case 0x06: reply = [UInt8](repeating: 0, count: data.count / 2)  // ReadRegister
        case 0x08, 0x12, 0x14, 0x32: reply = []  // WriteRegister, SetParameters, SAMConfiguration, RFConfiguration
        case 0x16, 0x44, 0x52: reply = [0x00]  // PowerDown, InDeselect, InRelease: status OK
        case 0x4A: reply = listPassiveTarget(data)
        case 0x60: reply = autoPoll(data, generation: generation)
        default: reply = nil
        }
        guard isCurrent(generation) else { return }
        var bytes: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]  // ACK
        if let reply {
            bytes += PN532Emulator.frame([0xD5, command &+ 1] + reply)
        } else {
            bytes += [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]  // error frame: syntax error
        }
        let corrupt = state.withLock { state -> Bool in
            guard state.corruptResponses > 0 else { return false }
            state.corruptResponses -= 1
            return true
        }
        if corrupt {
            bytes =
                Array(bytes.prefix(6)) + [0x00, 0x00, 0xFF, 0x05, 0xFB, 0xD5, 0x4B, 0x13, 0x37, 0x00, 0x00]
                + (0..<24).map { _ in UInt8.random(in: 0...255) }
        }
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        if command == 0x4A || command == 0x60 { state.withLock { $0.polls += 1 } }
    }

    static func frame(_ body: [UInt8]) -> [UInt8] {
        let length = UInt8(body.count)
        let checksum = UInt8(truncatingIfNeeded: 0x100 - body.reduce(0) { ($0 + Int($1)) & 0xFF })
        return [0x00, 0x00, 0xFF, length, UInt8(truncatingIfNeeded: 0x100 - Int(length))] + body + [checksum, 0x00]
    }

    /// The target data of an ISO 14443-A tag: Tg, SENS_RES, SEL_RES, UID length, UID. A 4-byte UID
    /// answers as a MIFARE Classic 1K (SAK 08), a 7-byte one as an Ultralight (SAK 00).
    private func targetData(_ uid: [UInt8], number: UInt8) -> [UInt8] {
        let sensRes: [UInt8] = uid.count == 4 ? [0x00, 0x04] : [0x00, 0x44]
        return [number] + sensRes + [uid.count == 4 ? 0x08 : 0x00, UInt8(uid.count)] + uid
    }

    /// InListPassiveTarget (MaxTg, BrTy, ...): a tag only for BrTy 00 (106 kbps type A).
    private func listPassiveTarget(_ data: [UInt8]) -> [UInt8] {
        guard data.count >= 2, data[1] == 0x00, let uid = state.withLock({ $0.uid }) else { return [0x00] }
        return [0x01] + targetData(uid, number: 1)
    }

    /// InAutoPoll (PollNr, Period, Types...), as `nfc-poll` sends: waits for a tag for up to
    /// PollNr × Period × 150 ms per type (PollNr FF: until one comes), then answers.
    private func autoPoll(_ data: [UInt8], generation: Int) -> [UInt8] {
        guard data.count >= 3 else { return [0x00] }
        let types = data.dropFirst(2)
        let seconds = data[0] == 0xFF ? Double.infinity : Double(data[0]) * Double(data[1]) * 0.15 * Double(types.count)
        let deadline = Date().addingTimeInterval(min(seconds, 3600))
        while isCurrent(generation), Date() < deadline {
            if let uid = state.withLock({ $0.uid }), types.contains(where: { $0 == 0x00 || $0 == 0x10 || $0 == 0x20 }) {
                let target = targetData(uid, number: 1)
                return [0x01, 0x10, UInt8(target.count)] + target  // one target, MIFARE type, its data
            }
            usleep(5_000)
        }
        return [0x00]
    }
}

public struct EmulatorError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
