import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleImager
import ReveilleProtocol

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
        let userData = Self.read(userDataPath), network = Self.read(networkPath)
        guard userData != nil || network != nil else {
            return print("no settings from Raspberry Pi Imager in \(boot): nothing to do")
        }
        let settings: ImagerSettings
        do {
            settings = try ImagerSettings.read(userData: userData, networkConfig: network)
        } catch {
            for path in [userDataPath, networkPath] where Self.read(path) != nil { rename(path, path + ".refused") }
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
                at: target + "/etc/systemd/system/multi-user.target.wants/wpa_supplicant@wlan0.service")
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

    /// Writes `text` to `path` through a new file renamed into place, with `mode`.
    static func write(_ text: String, to path: String, mode: mode_t) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        fsync(fd)
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// A symbolic link at `path` to `destination`, replacing what was there.
    static func link(_ destination: String, at path: String) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        unlink(path)
        guard symlink(destination, path) == 0 else {
            throw ValidationError("cannot link \(path): \(String(cString: strerror(errno)))")
        }
    }
}
