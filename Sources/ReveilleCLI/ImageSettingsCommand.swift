import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleImager
import ReveilleProtocol
import ReveilleSystem

/// `reveille image-settings`: Raspberry Pi Imager's OS customisation for the card image
/// (hardware.md, "The image"), applied once at the first boot by `reveille-imager.service`: the
/// Wi-Fi, the host name, the time zone and SSH keys. Then the files, which hold the Wi-Fi's key
/// and a password hash on a partition any computer reads, are removed from the card.
struct ImageSettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-settings",
        abstract: "Apply Raspberry Pi Imager's settings from the card's boot partition, once.",
        discussion: """
            Reads user-data and network-config (cloud-init's files, which Imager's OS customisation \
            writes) from the boot partition: the Wi-Fi network and its country, the host name, the \
            time zone, and the SSH keys, which let root in by SSH. Imager's user and password are not \
            made: the clock has no login user. The files are removed from the card once applied; one \
            that cannot be used is renamed *.refused, and the reason is printed. The password is \
            never printed. The image runs this at its first boot.
            """)

    @Option(help: ArgumentHelp("The card's boot partition (default: /boot/firmware under --root).", valueName: "dir"))
    var boot: String?

    /// `--root`: the system set up is the one under it (a folder, for development and tests).
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let paths = connection.paths
        // Under --root (or $REVEILLE_ROOT) every file is written under it, never to this machine's /etc.
        let target = paths.isSystem ? "" : paths.root
        guard !paths.isSystem || geteuid() == 0 else {
            printError("image-settings sets up this machine's network, name and zone: run it as root (sudo)")
            throw ExitCode(77)
        }
        let boot = self.boot ?? target + "/boot/firmware"
        let userDataPath = boot + "/user-data", networkPath = boot + "/network-config"
        // Read bounded, regular files only (a pipe or a device put there never blocks this):
        // one larger than the reader takes is refused by it.
        let userData = Self.imagerFile(userDataPath), network = Self.imagerFile(networkPath)
        guard userData != nil || network != nil else {
            return print("no settings from Raspberry Pi Imager in \(boot): nothing to do")
        }
        let settings: ImagerSettings
        do {
            settings = try ImagerSettings.read(userData: userData, networkConfig: network)
        } catch {
            for (path, text) in [(userDataPath, userData), (networkPath, network)] where text != nil {
                rename(path, path + ".refused")
            }
            printError("Raspberry Pi Imager's settings were not used: \(error); the files are kept as *.refused")
            throw ExitCode(65)
        }
        var done: [String] = []
        if let wifi = settings.wifi {
            try Self.write(
                ImagerFiles.wpaSupplicant(wifi), to: target + "/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
                mode: 0o600)
            try Self.write(
                ImagerFiles.wirelessNetwork, to: target + "/etc/systemd/network/25-wireless.network", mode: 0o644)
            try Self.link(
                "/lib/systemd/system/wpa_supplicant@.service",
                at: target + "/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service")
            done.append(
                "Wi-Fi \"\(wifi.ssid)\"\(wifi.country.map { " (\($0))" } ?? "")\(wifi.password == nil ? ", open" : "")")
        }
        if let name = settings.hostname {
            try Self.write(name + "\n", to: target + "/etc/hostname", mode: 0o644)
            let hosts = Self.read(target + "/etc/hosts") ?? "127.0.0.1\tlocalhost\n"
            try Self.write(ImagerFiles.hosts(hosts, hostname: name), to: target + "/etc/hosts", mode: 0o644)
            done.append("host name \(name)")
        }
        if let zone = settings.timeZone {
            guard access(target + "/usr/share/zoneinfo/" + zone, R_OK) == 0 else {
                printError("time zone \(zone): not in this system's tzdata; the clock's screen asks for it instead")
                throw ExitCode(65)
            }
            try Self.link("/usr/share/zoneinfo/" + zone, at: target + "/etc/localtime")
            try Self.write(zone + "\n", to: target + "/etc/timezone", mode: 0o644)
            done.append("time zone \(zone)")
        }
        if let keys = settings.user?.authorizedKeys, !keys.isEmpty {
            let file = target + "/root/.ssh/authorized_keys"
            let kept = Self.read(file) ?? ""
            try Self.write(kept + keys.joined(separator: "\n") + "\n", to: file, mode: 0o600)
            chmod(target + "/root/.ssh", 0o700)
            if settings.ssh {
                try Self.link(
                    "/lib/systemd/system/ssh.service",
                    at: target + "/etc/systemd/system/multi-user.target.wants/ssh.service")
            }
            done.append("\(keys.count) SSH key\(keys.count == 1 ? "" : "s") for root\(settings.ssh ? ", SSH on" : "")")
        }
        for path in [userDataPath, networkPath] { unlink(path) }
        print(
            "Raspberry Pi Imager's settings applied: "
                + (done.isEmpty ? "none a clock uses" : done.joined(separator: "; ")))
        let skipped =
            settings.notApplied + (settings.user.map { ["the user \($0.name) (the clock has no login user)"] } ?? [])
        if !skipped.isEmpty { print("not applied: " + skipped.joined(separator: ", ")) }
    }

    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// One of Imager's files: at most one byte more than the reader takes; nil when missing or
    /// not a regular file.
    static func imagerFile(_ path: String) -> String? {
        RegularFile.head(path, count: ImagerSettings.maxFileBytes + 1).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` to `path` (its folder made if need be) as `RegularFile.replace` does: whole
    /// or not at all, on the card before this returns.
    static func write(_ text: String, to path: String, mode: mode_t) throws {
        try FileManager.default.createDirectory(atPath: folder(of: path), withIntermediateDirectories: true)
        try RegularFile.replace(path, with: Array(text.utf8), mode: mode, durable: true)
    }

    /// A symbolic link at `path` to `destination`, replacing what was there (`RegularFile.replaceLink`).
    static func link(_ destination: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: folder(of: path), withIntermediateDirectories: true)
        try RegularFile.replaceLink(path, to: destination)
    }

    private static func folder(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }
}
