/// The files `reveille image-settings` writes from Imager's settings, as text: pure, so that the
/// tests read exactly what a clock gets.
public enum ImagerFiles {
    /// wpa_supplicant's file for the Wi-Fi interface (`wpa_supplicant@wlan0.service`). The
    /// network's name goes in hex (any bytes are safe so); Imager's key as it is (WPA2), a
    /// passphrase for WPA2 and WPA3 both, and no key for an open network. Root's alone (0600).
    public static func wpaSupplicant(_ wifi: ImagerSettings.WiFi) -> String {
        var lines = ["ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev", "update_config=1"]
        if let country = wifi.country { lines.append("country=\(country)") }
        lines.append("network={")
        lines.append("\tssid=" + wifi.ssid.utf8.map { hex($0) }.joined())
        if wifi.hidden { lines.append("\tscan_ssid=1") }
        switch wifi.password {
        case nil: lines.append("\tkey_mgmt=NONE")
        case let key? where wifi.passwordIsKey:
            lines += ["\tkey_mgmt=WPA-PSK", "\tpsk=\(key.lowercased())"]
        case let passphrase?:
            lines += ["\tkey_mgmt=WPA-PSK SAE", "\tpsk=\"\(passphrase)\"", "\tieee80211w=1"]
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// systemd-networkd's settings for the Wi-Fi interface: an address by DHCP, and the clock's
    /// name announced by multicast DNS, as on a cable.
    public static let wirelessNetwork = """
        # Written by reveille image-settings from Raspberry Pi Imager's Wi-Fi settings.
        [Match]
        Name=wl*

        [Network]
        DHCP=yes
        MulticastDNS=yes

        """

    /// /etc/hosts with this machine's own line (127.0.1.1) naming `hostname`, the rest as it was.
    public static func hosts(_ old: String, hostname: String) -> String {
        var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let own = "127.0.1.1\t\(hostname)"
        if let index = lines.firstIndex(where: { $0.hasPrefix("127.0.1.1") }) {
            lines[index] = own
        } else {
            let after = (lines.firstIndex(where: { $0.hasPrefix("127.0.0.1") }) ?? -1) + 1
            lines.insert(own, at: after)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
