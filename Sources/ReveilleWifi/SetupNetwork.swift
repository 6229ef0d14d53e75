/// A clock with no screen and no network opens its own set-up network (hardware.md, "Wi-Fi"):
/// "Reveille-XXXX", WPA2 with a one-time code the voice says; a phone that joins opens the page,
/// pairs with the same code, and picks the household's network. Its rules, pure.
public enum SetupNetwork {
    /// The set-up network's own address, where a phone opens the page (the image's networkd gives
    /// wlan0 this address and a DHCP server while it is an access point).
    public static let address = "10.42.0.1"
    /// Its channel: 2.4 GHz channel 6, which every phone hears in every country.
    public static let frequency = 2437
    /// How long after the start the clock waits for a network before it opens its own.
    public static let patience: Double = 20

    /// "Reveille-" and the last four hex digits of the adapter's address (`02:00:00:00:00:a3` →
    /// `Reveille-00A3`), so that two clocks in one house differ.
    public static func name(mac: String) -> String {
        let digits = mac.filter { $0.isHexDigit }.uppercased()
        return "Reveille-" + (digits.count >= 4 ? String(digits.suffix(4)) : "0000")
    }

    /// When to open it: `setting` says (`auto`: only with no screen), the first set-up is still to
    /// be done, no network is up, and there is a Wi-Fi adapter.
    public static func shouldOpen(setting: Setting, setupPending: Bool, screen: Bool, online: Bool, adapter: Bool)
        -> Bool
    {
        guard adapter, setupPending, !online else { return false }
        switch setting {
        case .never: return false
        case .auto: return !screen
        case .always: return true
        }
    }

    public enum Setting: String, Sendable, Equatable, CaseIterable {
        case auto
        case never
        case always
    }

    /// The code as the voice says it: digit by digit, in two groups (`4276-9142` → "4 2 7 6, 9 1 4 2").
    public static func spokenCode(_ code: String) -> String {
        code.split(separator: "-").map { $0.map(String.init).joined(separator: " ") }.joined(separator: ", ")
    }

    /// What the voice says while it is open, and again at a key.
    public static func announcement(name: String, code: String, port: Int) -> String {
        // "Reveille-00A3" → "Reveille 0 0 A 3": the letters of the suffix one by one.
        let parts = name.split(separator: "-", maxSplits: 1)
        let spokenName = parts.count == 2 ? "\(parts[0]) " + parts[1].map(String.init).joined(separator: " ") : name
        return "To set up this clock, join the Wi-Fi network \(spokenName) with the code \(spokenCode(code)). "
            + "Then open \(address.replacing(".", with: " dot ")), port \(port), and type the same code."
    }

    /// What the voice says once the clock is on the household's network.
    public static func joined(network: String, address: String?, port: Int) -> String {
        "Joined \(network). "
            + (address.map { "This clock is at \($0.replacing(".", with: " dot ")), port \(port)." }
                ?? "Its address comes from the router in a moment.")
    }

    /// Whether the machine has a way out to a home network: a default route in the kernel's IPv4
    /// table (`/proc/net/route`, where the default has destination and mask 00000000 and the
    /// route is up). A network of its own (the set-up network, a test's access point) has none.
    public static func hasDefaultRoute(routeTable: String) -> Bool {
        routeTable.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 8, let flags = Int(fields[3], radix: 16) else { return false }
            return fields[1] == "00000000" && fields[7] == "00000000" && flags & 1 != 0
        }
    }

    /// The code as wpa_supplicant's passphrase: its digits (8).
    public static func passphrase(code: String) -> [UInt8] { Array(code.filter(\.isNumber).utf8) }
}
