import Foundation
import Testing

/// `reveille image-settings`, as the image's first boot runs it: Raspberry Pi Imager's files on
/// the boot partition become the Wi-Fi's, the host name, the time zone and root's SSH keys in the
/// system (a folder here), and leave the card; the key is never printed.
@Suite struct ImageSettingsTests {
    static let key = String(repeating: "ab", count: 32)

    func folders() throws -> (boot: String, root: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("imager-\(UUID().uuidString)").path
        for folder in ["boot", "root/usr/share/zoneinfo/Europe", "root/etc"] {
            try FileManager.default.createDirectory(atPath: "\(base)/\(folder)", withIntermediateDirectories: true)
        }
        try "TZif".write(toFile: "\(base)/root/usr/share/zoneinfo/Europe/London", atomically: true, encoding: .utf8)
        try "127.0.0.1\tlocalhost\n127.0.1.1\treveille\n".write(
            toFile: "\(base)/root/etc/hosts", atomically: true, encoding: .utf8)
        return ("\(base)/boot", "\(base)/root")
    }

    @Test func imagersFilesAreAppliedOnceAndLeaveTheCard() throws {
        let (boot, root) = try folders()
        try """
        #cloud-config
        hostname: bedside
        timezone: Europe/London
        enable_ssh: true
        users:
        - name: mia
          passwd: $5$salt$hash
          ssh_authorized_keys:
            - ssh-ed25519 AAAAexample mia@laptop
        """.write(toFile: boot + "/user-data", atomically: true, encoding: .utf8)
        try """
        network:
          version: 2
          wifis:
            wlan0:
              regulatory-domain: "DE"
              access-points:
                "Home":
                  password: "\(Self.key)"
        """.write(toFile: boot + "/network-config", atomically: true, encoding: .utf8)
        try "instance-id: x\n".write(toFile: boot + "/meta-data", atomically: true, encoding: .utf8)

        let applied = try runProcess(Binaries.cli, ["--root", root, "image-settings", "--boot", boot])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(
            applied.stdout
                == "Raspberry Pi Imager's settings applied: Wi-Fi \"Home\" (DE); host name bedside; time zone Europe/London; 1 SSH key for root, SSH on\nnot applied: the user mia (the clock has no login user)\n"
        )
        #expect(!applied.stdout.contains(Self.key) && !applied.stderr.contains(Self.key))
        let wpa = root + "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
        #expect(
            try String(contentsOfFile: wpa, encoding: .utf8).contains(
                "\tssid=486f6d65\n\tkey_mgmt=WPA-PSK\n\tpsk=\(Self.key)\n"))
        #expect((try FileManager.default.attributesOfItem(atPath: wpa)[.posixPermissions] as? Int) == 0o600)
        #expect(
            try String(contentsOfFile: root + "/etc/systemd/network/25-wireless.network", encoding: .utf8).contains(
                "Name=wl*"))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(
                atPath: root + "/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service")
                == "/lib/systemd/system/wpa_supplicant@.service")
        #expect(try String(contentsOfFile: root + "/etc/hostname", encoding: .utf8) == "bedside\n")
        #expect(
            try String(contentsOfFile: root + "/etc/hosts", encoding: .utf8)
                == "127.0.0.1\tlocalhost\n127.0.1.1\tbedside\n")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: root + "/etc/localtime")
                == "/usr/share/zoneinfo/Europe/London")
        #expect(
            try String(contentsOfFile: root + "/root/.ssh/authorized_keys", encoding: .utf8)
                == "ssh-ed25519 AAAAexample mia@laptop\n")
        // The files with the key and the hash are gone from the card; the next boot has nothing to do.
        #expect(!FileManager.default.fileExists(atPath: boot + "/user-data"))
        #expect(!FileManager.default.fileExists(atPath: boot + "/network-config"))
        let again = try runProcess(Binaries.cli, ["--root", root, "image-settings", "--boot", boot])
        #expect(again.status == 0 && again.stdout.contains("nothing to do"))
    }

    @Test func aFileImagerNeverWroteIsRefusedAndSetAside() throws {
        let (boot, root) = try folders()
        try "hostname: \"bed; reboot\"\n".write(toFile: boot + "/user-data", atomically: true, encoding: .utf8)
        let refused = try runProcess(Binaries.cli, ["--root", root, "image-settings", "--boot", boot])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("user-data hostname: \"bed; reboot\" is not a host name"))
        #expect(FileManager.default.fileExists(atPath: boot + "/user-data.refused"))
        #expect(!FileManager.default.fileExists(atPath: root + "/etc/hostname"))
    }
}
