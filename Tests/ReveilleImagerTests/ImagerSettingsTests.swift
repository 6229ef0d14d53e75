import Testing

@testable import ReveilleImager

/// Raspberry Pi Imager's OS customisation for a custom image, as its cloud-init files say it
/// (rpi-imager's customisation generator: `network:` version 2 with one access point and Imager's
/// PBKDF2 key, `hostname`, `timezone`, a user with a crypt hash and keys).
@Suite struct ImagerSettingsTests {
    static let key = "2f1a4c3b5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70"
    static let networkConfig = """
        network:
          version: 2
          wifis:
            wlan0:
              dhcp4: true
              regulatory-domain: "gb"
              access-points:
                "Smith \\"home\\" 5G":
                  password: "\(key)1"
              optional: true
        """
    static let userData = """
        #cloud-config
        hostname: bedside
        manage_etc_hosts: true
        packages:
        - avahi-daemon

        timezone: Europe/London
        keyboard:
          model: pc105
          layout: "gb"
        enable_ssh: true
        users:
        - name: mia
          groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
          shell: /bin/bash
          lock_passwd: false
          passwd: $5$abcdefgh$0123456789abcdefghijklmnopqrstuvwxyzABCDEF
          ssh_authorized_keys:
            - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBexample mia@laptop
          sudo: ALL=(ALL) NOPASSWD:ALL

        """

    /// Aliases that unfold into a billion values: refused, not followed.
    static let laughs =
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + (1..<9).map {
            "l\($0): &l\($0) [" + Array(repeating: $0 == 1 ? "*a" : "*l\($0 - 1)", count: 10).joined(separator: ", ")
                + "]"
        }
        .joined(separator: "\n") + "\n"

    @Test func whatImagerWritesIsRead() throws {
        let settings = try ImagerSettings.read(userData: Self.userData, networkConfig: Self.networkConfig)
        #expect(settings.hostname == "bedside" && settings.timeZone == "Europe/London" && settings.ssh)
        #expect(settings.wifi == .init(ssid: "Smith \"home\" 5G", password: Self.key + "1", country: "GB"))
        #expect(settings.wifi?.passwordIsKey == true)
        #expect(settings.user?.name == "mia" && settings.user?.passwordHash?.hasPrefix("$5$") == true)
        #expect(settings.user?.authorizedKeys == ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBexample mia@laptop"])
        #expect(settings.notApplied == ["keyboard", "packages"])
    }

    @Test func aHiddenOpenNetworkAndAPassphraseAndNoFilesAtAll() throws {
        let hidden = try ImagerSettings.read(
            userData: nil,
            networkConfig: "version: 2\nwifis:\n  wlan0:\n    access-points:\n      cafe:\n        hidden: true\n")
        #expect(hidden.wifi == .init(ssid: "cafe", password: nil, hidden: true))
        let phrase = try ImagerSettings.read(
            userData: nil,
            networkConfig:
                "network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        home:\n          password: \"correct horse\"\n"
        )
        #expect(phrase.wifi?.password == "correct horse" && phrase.wifi?.passwordIsKey == false)
        // An open network: Imager writes its password empty.
        let open = try ImagerSettings.read(
            userData: nil,
            networkConfig:
                "network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"cafe\":\n          password: \"\"\n"
        )
        #expect(open.wifi == .init(ssid: "cafe", password: nil))
        #expect(try ImagerSettings.read(userData: nil, networkConfig: nil) == ImagerSettings())
        #expect(try ImagerSettings.read(userData: "", networkConfig: "") == ImagerSettings())
    }

    /// Each value that is not what Imager writes is refused with its file and key; no part of a
    /// refused file is taken.
    @Test func whatImagerNeverWritesIsRefusedByName() {
        let refused: [(String?, String?, String)] = [
            ("hostname: \"bed side\"\n", nil, "user-data hostname: \"bed side\" is not a host name"),
            ("hostname: \"-x\"\n", nil, "user-data hostname"),
            ("timezone: ../../etc/shadow\n", nil, "user-data timezone: \"../../etc/shadow\" is not a time zone's name"),
            ("users:\n- name: \"mia; rm -rf /\"\n", nil, "user-data name: \"mia; rm -rf /\" is not a user name"),
            ("users:\n- name: root\n", nil, "user-data name"),
            ("users:\n- name: mia\n  passwd: \"x:0:0\"\n", nil, "user-data passwd: is not a password hash"),
            (
                "users:\n- name: mia\n  ssh_authorized_keys:\n  - \"command=\\\"sh\\\" ssh-rsa AAA\"\n", nil,
                "user-data ssh_authorized_keys: an entry is not an SSH public key"
            ),
            ("- a list\n", nil, "user-data: is not a table of settings"),
            ("key: [unclosed\n", nil, "user-data: is not YAML"),
            (Self.laughs, nil, "user-data: unfolds into more than 10000 values"),
            (String(repeating: "# a comment\n", count: 6_000), nil, "user-data: is larger than 64 KB"),
            (
                nil, "wifis:\n  wlan0:\n    access-points:\n      home:\n        password: short\n",
                "network-config password"
            ),
            (
                nil,
                "wifis:\n  wlan0:\n    access-points:\n      \(String(repeating: "x", count: 33)):\n        password: longenough\n",
                "network-config access-points: a network's name is 1 to 32 bytes"
            ),
            (
                nil, "wifis:\n  wlan0:\n    regulatory-domain: GBR\n    access-points:\n      home: {}\n",
                "network-config regulatory-domain: \"GBR\" is not a country's two letters"
            ),
            (nil, "wifis:\n  wlan0:\n    dhcp4: true\n", "network-config access-points: names no network"),
        ]
        for (userData, network, words) in refused {
            #expect(throws: ImagerError.self) { try ImagerSettings.read(userData: userData, networkConfig: network) }
            do {
                _ = try ImagerSettings.read(userData: userData, networkConfig: network)
            } catch {
                #expect(error.description.hasPrefix(words), "\(error)")
            }
        }
    }

    @Test func wpaSupplicantGetsTheNameInHexAndTheKeyForEachKindOfNetwork() {
        let keyed = ImagerFiles.wpaSupplicant(.init(ssid: "a\"b", password: Self.key + "1", country: "GB"))
        #expect(
            keyed == """
                ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev
                update_config=1
                country=GB
                network={
                \tssid=612262
                \tkey_mgmt=WPA-PSK
                \tpsk=\(Self.key)1
                }

                """)
        let phrase = ImagerFiles.wpaSupplicant(.init(ssid: "home", password: "correct horse", hidden: true))
        #expect(phrase.contains("\tscan_ssid=1\n\tkey_mgmt=WPA-PSK SAE\n\tpsk=\"correct horse\"\n\tieee80211w=1\n"))
        #expect(!phrase.contains("country="))
        #expect(ImagerFiles.wpaSupplicant(.init(ssid: "cafe", password: nil)).contains("\tkey_mgmt=NONE\n"))
    }

    @Test func theHostsFileGetsTheMachinesOwnLine() {
        #expect(
            ImagerFiles.hosts("127.0.0.1\tlocalhost\n127.0.1.1\treveille\n::1\tlocalhost\n", hostname: "bedside")
                == "127.0.0.1\tlocalhost\n127.0.1.1\tbedside\n::1\tlocalhost\n")
        #expect(
            ImagerFiles.hosts("127.0.0.1\tlocalhost\n::1\tlocalhost\n", hostname: "bedside")
                == "127.0.0.1\tlocalhost\n127.0.1.1\tbedside\n::1\tlocalhost\n")
    }
}
