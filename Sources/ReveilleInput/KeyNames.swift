import CEvdev

/// Kernel key names (`KEY_SPACE`, `KEY_KP7`, `BTN_0`) and their codes, from libevdev's tables,
/// which follow linux/input-event-codes.h.
public enum KeyNames {
    /// The code of a `KEY_` or `BTN_` name; nil when the kernel has no such key.
    public static func code(_ name: String) -> UInt16? {
        guard name.hasPrefix("KEY_") || name.hasPrefix("BTN_") else { return nil }
        let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
        guard code >= 0, code <= Int32(KEY_MAX) else { return nil }
        return UInt16(code)
    }

    /// `KEY_SPACE` for 57; `code 700` for a code libevdev does not name.
    public static func name(_ code: UInt16) -> String {
        guard let name = libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)) else { return "code \(code)" }
        return String(cString: name)
    }
}
