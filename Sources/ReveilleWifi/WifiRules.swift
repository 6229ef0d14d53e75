import ReveilleProtocol

/// Who may change the clock's Wi-Fi, and what a network and its password must be before anything
/// reaches the system's Wi-Fi service (hardware.md, "Wi-Fi").
public enum WifiRules {
    /// Why `wifi scan`/`wifi join` is refused to someone with `role`; nil: served. An admin's,
    /// and, while the first set-up is asked (`setupPending`), the clock's screen's.
    public static func refusal(role: Role, setupPending: Bool) -> String? {
        if role >= .admin || setupPending { return nil }
        return
            "only an admin changes the clock's Wi-Fi: pair this browser as an admin, or: sudo reveille wifi join NAME"
    }

    /// A network to join, checked: its name's bytes and its key.
    public struct Credentials: Equatable, Sendable {
        public enum Key: Equatable, Sendable {
            /// An open network.
            case none
            /// A WPA passphrase (8 to 63 printable ASCII characters), to be hashed with the name
            /// (PBKDF2) before it leaves the daemon.
            case passphrase([UInt8])
            /// The 32-byte key itself (64 hex digits), as Imager writes it.
            case key([UInt8])
        }
        public let name: [UInt8]
        public let key: Key
    }

    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Checks a network's name and password as typed; the words say what to fix.
    public static func credentials(network: String, password: String?) throws(Problem) -> Credentials {
        let name = Array(network.utf8)
        guard (1...32).contains(name.count) else {
            throw Problem(
                description: name.isEmpty
                    ? "choose a network: its name is empty"
                    : "a Wi-Fi network's name is at most 32 bytes; this one has \(name.count): choose it from the list")
        }
        guard let password, !password.isEmpty else { return Credentials(name: name, key: .none) }
        let bytes = Array(password.utf8)
        if bytes.count == 64, let key = hexBytes(bytes) { return Credentials(name: name, key: .key(key)) }
        guard bytes.allSatisfy({ (0x20...0x7e).contains($0) }) else {
            throw Problem(
                description:
                    "a Wi-Fi password is plain letters, digits and symbols (no accents or emoji); check it and type it again"
            )
        }
        guard (8...63).contains(bytes.count) else {
            throw Problem(
                description: bytes.count < 8
                    ? "a Wi-Fi password has at least 8 characters; this one has \(bytes.count): check it and type it again"
                    : "a Wi-Fi password has at most 63 characters; check it and type it again")
        }
        return Credentials(name: name, key: .passphrase(bytes))
    }

    /// 64 hex digits as 32 bytes; nil when they are not.
    static func hexBytes(_ digits: [UInt8]) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Bytes as lowercase hex: how a name and a key reach wpa_supplicant, never as text it parses.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
