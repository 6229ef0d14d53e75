import Foundation
import Glibc
import ReveilleSystem
import Testing

@testable import ReveilleInput

/// The evdev edge: libevdev's key names, the `input_event` decoder, and a FIFO read as a device
/// (this machine has neither /dev/uinput nor CUSE).
@Suite struct InputDeviceTests {
    @Test func keyNamesComeFromLibevdev() {
        #expect(KeyNames.code("KEY_SPACE") == 57)
        #expect(KeyNames.code("KEY_KPENTER") == 96)
        #expect(KeyNames.code("KEY_KP0") == 82)
        #expect(KeyNames.code("BTN_0") == 0x100)
        #expect(KeyNames.code("KEY_SPCE") == nil)
        #expect(KeyNames.code("REL_X") == nil, "only keys and buttons")
        #expect(KeyNames.name(57) == "KEY_SPACE")
    }

    @Test func eventsSplitAcrossReadsAreJoined() {
        let press = InputEvent(type: InputEvent.key, code: 57, value: 1).bytes
        let release = InputEvent(type: InputEvent.key, code: 57, value: 0).bytes
        var decoder = InputEventDecoder()
        #expect(decoder.feed(press.prefix(10)) == [])
        #expect(decoder.partialBytes == 10)
        let events = decoder.feed(press.dropFirst(10) + release)
        #expect(events == [InputEvent(type: 1, code: 57, value: 1), InputEvent(type: 1, code: 57, value: 0)])
        #expect(decoder.partialBytes == 0)
    }

    /// A FIFO at `path` with a writer on it: the "device" and the hand that types on it.
    func fifo(_ name: String) throws -> (path: String, writer: Int32) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        #expect(mkfifo(path, 0o600) == 0)
        return (path, -1)
    }

    @Test func aFifoIsReadAsADeviceAndItsWriterClosingIsAnUnplug() throws {
        let (path, _) = try fifo("keypad")
        let device = try InputDevice(path: path)
        #expect(!device.isEvdev)
        #expect(device.name == "keypad")
        #expect(device.grab(true) == "not an evdev device")
        // No writer yet: the event loop is not woken (a read would say end of file).
        var ready = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 0) == 0)
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        let bytes = InputEvent(type: InputEvent.key, code: 2, value: 1).bytes
        #expect(write(writer, bytes, bytes.count) == bytes.count)
        #expect(device.read() == .events([InputEvent(type: 1, code: 2, value: 1)]))
        close(writer)
        #expect(device.read() == .gone("closed by its writer"))
    }

    @Test func garbageAndATruncatedEventNeverCrashTheReader() throws {
        let (path, _) = try fifo("noise")
        let device = try InputDevice(path: path)
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        var noise = (0..<1000).map { _ in UInt8.random(in: 0...255) }
        noise += InputEvent(type: InputEvent.key, code: 57, value: 1).bytes.prefix(7)
        #expect(write(writer, noise, noise.count) == noise.count)
        guard case .events(let events) = device.read() else {
            Issue.record("the device should still be there")
            return
        }
        #expect(events.count == 1000 / InputEvent.size, "whole records decode, whatever they hold")
        close(writer)
        #expect(device.read() == .gone("closed by its writer"), "the partial record is dropped with the device")
    }

    @Test func aMissingDeviceIsAbsentNotAnError() {
        #expect(throws: SystemCallError.self) { try InputDevice(path: "/nonexistent/input/event9") }
        do {
            _ = try InputDevice(path: "/nonexistent/input/event9")
        } catch {
            #expect(error.isAbsent)
        }
    }
}
