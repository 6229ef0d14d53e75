import CReveilleShims
import Glibc
import ReveilleSystem

/// Why an input device could not be opened or read.

/// An evdev device opened for reading without blocking (O_NONBLOCK), so that the event loop can
/// watch it. Anything that yields `struct input_event` records works, which is how the tests feed
/// a FIFO in place of a keypad. Closed in `deinit`.
public final class InputDevice {
    public let path: String
    private let device: Descriptor
    public var fd: Int32 { device.raw }
    /// The device's own name (EVIOCGNAME), or the file's name when it is not an evdev device.
    public let name: String
    /// Whether it is a real evdev device (the ioctls work).
    public let isEvdev: Bool
    private var decoder = InputEventDecoder()

    public init(path: String) throws(SystemCallError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SystemCallError(
                "open", path, errno: code,
                reason: code == EACCES
                    ? "permission denied; the daemon's user must be in the 'input' group (hardware.md)" : nil)
        }
        self.path = path
        self.device = Descriptor(taking: fd)
        var buffer = [CChar](repeating: 0, count: 256)
        let length = RV_evdev_name(fd, &buffer, Int32(buffer.count))
        isEvdev = length >= 0
        name =
            length > 0
            ? String(
                decoding: buffer.prefix(Int(length)).prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : String(path.split(separator: "/").last ?? Substring(path))
    }

    /// What a read found.
    public enum ReadResult: Equatable, Sendable {
        case events([InputEvent])
        /// The device is gone: unplugged (ENODEV), or the writer of a pipe closed it. Close it and
        /// wait for it to come back.
        case gone(String)
    }

    /// Reads what is waiting, without blocking. Events read before the device went away are lost
    /// with it: a key half-pressed on a keypad being unplugged means nothing.
    public func read() -> ReadResult {
        var events: [InputEvent] = []
        var buffer = [UInt8](repeating: 0, count: InputEvent.size * 64)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count > 0 {
                events += decoder.feed(buffer[0..<count])
                continue
            }
            if count == 0 { return .gone("closed by its writer") }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN { return .events(events) }
            return .gone(code == ENODEV ? "unplugged" : String(cString: strerror(code)))
        }
    }

    /// Whether the path no longer names the file open here (removed, or a new node in its place).
    public var isReplaced: Bool {
        var named = stat()
        var held = stat()
        guard stat(path, &named) == 0, fstat(fd, &held) == 0 else { return true }
        return named.st_ino != held.st_ino || named.st_dev != held.st_dev
    }

    /// Takes the device for this process alone (EVIOCGRAB), or gives it back. nil when done, else
    /// why not: a grab that fails only means keystrokes may also reach a console.
    public func grab(_ on: Bool) -> String? {
        let result = RV_evdev_grab(fd, on ? 1 : 0)
        guard result != 0 else { return nil }
        return result == -ENOTTY ? "not an evdev device" : String(cString: strerror(-result))
    }

    /// Whether the device reports any of `codes` (EVIOCGBIT): how a keypad or button is found
    /// among the input devices.
    public func reportsAny(of codes: Set<UInt16>) -> Bool {
        codes.contains { RV_evdev_has_key(fd, UInt32($0)) == 1 }
    }

    /// The `eventN` character devices in `folder` (`/dev/input`), sorted.
    public static func eventDevices(in folder: String) -> [String] {
        Folder.names(folder).filter { $0.hasPrefix("event") }.map { folder + "/" + $0 }
            .sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
    }
}
