import Foundation
import Testing
import ReveilleProtocol

/// The files that make Reveille an appliance: the systemd unit, udev rules, the modprobe
/// blacklist, and what `make install` puts where.
@Suite(.serialized) struct DeploymentTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let manPages = package.appendingPathComponent(".build/plugins/GenerateManual/outputs")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: package.appendingPathComponent(path), encoding: .utf8)
    }

    /// systemd-analyze verify on a unit whose ExecStart names `binary`.
    static func verify(unit: String, binary: String) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-unit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("reveille.service")
        let text = unit.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=") ? "ExecStart=\(binary)" : String(line)
        }.joined(separator: "\n")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return try runProcess(URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", file.path])
    }

    @Test func theUnitPassesSystemdAnalyzeVerify() throws {
        let unit = try Self.text("systemd/reveille.service")
        let outcome = try Self.verify(unit: unit, binary: Binaries.daemon.path)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderr.isEmpty, "\(outcome)")
        for line in [
            "Type=notify", "WatchdogSec=3min", "Restart=always", "User=reveille",
            "SupplementaryGroups=audio dialout i2c spi plugdev input", "StateDirectory=reveille",
            "RuntimeDirectory=reveille",
            "ConfigurationDirectory=reveille", "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes",
            "After=time-sync.target sound.target network.target",
        ] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "missing \(line)")
        }
    }

    @Test func theWebUnitPassesAndHoldsNoPrivilege() throws {
        let unit = try Self.text("systemd/reveille-web.service")
        let outcome = try Self.verify(
            unit: unit, binary: Binaries.directory.appendingPathComponent("reveille-web").path)
        #expect(outcome.status == 0, "\(outcome)")
        let lines = unit.split(separator: "\n").map(String.init)
        for line in [
            "User=reveille-web", "SupplementaryGroups=reveille reveille-admin", "CapabilityBoundingSet=",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateDevices=yes", "MemoryDenyWriteExecute=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        ] {
            #expect(lines.contains(line), "missing \(line)")
        }
        #expect(try Self.text("systemd/reveille.sysusers").contains("u reveille-web - "))
    }

    @Test func theMQTTBridgesUnitPassesHoldsNoPrivilegeAndIsBounded() throws {
        let unit = try Self.text("systemd/reveille-mqtt.service")
        let outcome = try Self.verify(
            unit: unit.replacingOccurrences(of: "@DOCDIR@", with: "/usr/share/doc/reveille"),
            binary: Binaries.directory.appendingPathComponent("reveille-mqtt").path)
        #expect(outcome.status == 0, "\(outcome)")
        let lines = unit.split(separator: "\n").map(String.init)
        for line in [
            "User=reveille-mqtt", "SupplementaryGroups=reveille reveille-admin", "CapabilityBoundingSet=",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateDevices=yes", "MemoryDenyWriteExecute=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "StateDirectory=reveille-mqtt", "MemoryMax=64M",
            "RestartPreventExitStatus=78",
        ] {
            #expect(lines.contains(line), "missing \(line)")
        }
        // Where doctor reads the bridge's health is the unit's state folder.
        #expect(Paths(root: "/").bridgeHealth == "/var/lib/reveille-mqtt/health.json")
        #expect(try Self.text("systemd/reveille.sysusers").contains("u reveille-mqtt - "))
    }

    @Test func theCalendarFetcherRunsUnprivilegedOnATimerAndWhenAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-units-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try Self.text("systemd/reveille-calendar.service")
        let timer = try Self.text("systemd/reveille-calendar.timer")
        try service.replacingOccurrences(
            of: "@BINDIR@/reveille-calendar", with: Binaries.directory.appendingPathComponent("reveille-calendar").path
        )
        .replacingOccurrences(of: "@DOCDIR@", with: "/usr/share/doc/reveille")
        .write(to: folder.appendingPathComponent("reveille-calendar.service"), atomically: true, encoding: .utf8)
        try timer.replacingOccurrences(of: "@DOCDIR@", with: "/usr/share/doc/reveille")
            .write(to: folder.appendingPathComponent("reveille-calendar.timer"), atomically: true, encoding: .utf8)
        let path = try Self.text("systemd/reveille-calendar.path")
        try path.replacingOccurrences(of: "@DOCDIR@", with: "/usr/share/doc/reveille")
            .write(to: folder.appendingPathComponent("reveille-calendar.path"), atomically: true, encoding: .utf8)
        let outcome = try runProcess(
            URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
            [
                "verify", folder.appendingPathComponent("reveille-calendar.service").path,
                folder.appendingPathComponent("reveille-calendar.timer").path,
                folder.appendingPathComponent("reveille-calendar.path").path,
            ])
        #expect(outcome.status == 0, "\(outcome)")
        let lines = service.split(separator: "\n").map(String.init)
        for line in [
            "Type=oneshot", "ExecStart=@BINDIR@/reveille-calendar refresh", "User=reveille-fetch",
            "SupplementaryGroups=reveille", "CacheDirectory=reveille-calendars", "CapabilityBoundingSet=",
            "NoNewPrivileges=yes", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        ] {
            #expect(lines.contains(line), "missing \(line)")
        }
        // The period the page and `calendar list` count the next fetch by is the timer's.
        #expect(timer.contains("\nOnUnitActiveSec=\(FetchState.every / 3600)h\n"))
        // "Refresh now": the path unit watches the file the daemon writes, and starts the fetcher.
        #expect(path.contains("\nPathChanged=\(Paths(root: "/").fetchRequest)\n"))
        #expect(path.contains("\nUnit=reveille-calendar.service\n"))
        #expect(try Self.text("systemd/reveille.sysusers").contains("u reveille-fetch - "))
        #expect(
            try Self.text("systemd/reveille.tmpfiles").contains(
                "d /var/cache/reveille-calendars 0755 reveille-fetch reveille-fetch -"))
        // The daemon's unit lets it read the cache (ProtectSystem=strict leaves /var/cache readable).
        #expect(try Self.text("systemd/reveille.service").contains("ProtectSystem=strict"))
    }

    /// One udev rule: comma-separated `KEY{attr}op"value"` pairs.
    struct Rule {
        var matches: [String: String] = [:]
        var assignments: [String: String] = [:]
    }

    static func parseRules(_ text: String) throws -> [Rule] {
        let pattern = try Regex(#"^([A-Z_]+)(\{[A-Za-z_]+\})?(==|!=|\+=|:=|=)"([^"]*)"$"#)
        let matchKeys: Set = ["SUBSYSTEM", "KERNEL", "ATTR", "ATTRS", "DRIVERS", "ENV", "ACTION"]
        let assignKeys: Set = ["GROUP", "MODE", "SYMLINK", "OWNER", "TAG", "RUN"]
        var rules: [Rule] = []
        for (number, line) in text.split(separator: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            var rule = Rule()
            for token in trimmed.components(separatedBy: ", ") {
                guard let match = try pattern.wholeMatch(in: token) else {
                    throw HarnessError("line \(number + 1): \"\(token)\" is not KEY==\"value\" or KEY=\"value\"")
                }
                let key = String(match.output[1].substring!) + (match.output[2].substring.map(String.init) ?? "")
                let base = String(match.output[1].substring!)
                let op = String(match.output[3].substring!)
                let value = String(match.output[4].substring!)
                if op == "==" || op == "!=" {
                    guard matchKeys.contains(base) else {
                        throw HarnessError("line \(number + 1): \(base) cannot be matched")
                    }
                    rule.matches[key] = value
                } else {
                    guard assignKeys.contains(base) else {
                        throw HarnessError("line \(number + 1): \(base) cannot be assigned")
                    }
                    // RUN+= adds: each program in turn.
                    rule.assignments[key] = rule.assignments[key].map { $0 + "; " + value } ?? value
                }
            }
            guard !rule.matches.isEmpty, !rule.assignments.isEmpty else {
                throw HarnessError("line \(number + 1): a rule needs a match and an assignment")
            }
            rules.append(rule)
        }
        return rules
    }

    @Test func udevRulesAreWellFormedAndNameTheReaders() throws {
        let rules = try Self.parseRules(try Self.text("udev/70-reveille.rules"))
        func ids(_ subsystem: String, _ attribute: String) -> Set<String> {
            Set(
                rules.filter { $0.matches["SUBSYSTEM"] == subsystem }.compactMap { rule in
                    guard let vendor = rule.matches["\(attribute){idVendor}"],
                        let product = rule.matches["\(attribute){idProduct}"]
                    else { return nil }
                    return "\(vendor):\(product)"
                })
        }
        // ACR122U, ACR122 (old), SCL3711, RC-S360, PN533 boards.
        #expect(ids("usb", "ATTR") == ["072f:2200", "072f:90cc", "04e6:5591", "054c:02e1", "04cc:2533"])
        // CP2102, CH340, FT232, PL2303 serial adapters.
        #expect(ids("tty", "ATTRS") == ["10c4:ea60", "1a86:7523", "0403:6001", "067b:2303"])
        // The display's backlight: a sysfs attribute, whose group and mode only a program sets.
        let backlight = rules.filter { $0.matches["SUBSYSTEM"] == "backlight" }
        #expect(backlight.count == 1 && backlight.first?.matches["ACTION"] == "add")
        #expect(
            backlight.first?.assignments["RUN"]
                == "/bin/chgrp video /sys%p/brightness; /bin/chmod g+w /sys%p/brightness")
        for rule in rules where rule.matches["SUBSYSTEM"] != "backlight" {
            for key in ["ATTR{idVendor}", "ATTR{idProduct}", "ATTRS{idVendor}", "ATTRS{idProduct}"] {
                if let value = rule.matches[key] {
                    #expect(value.count == 4 && value.allSatisfy(\.isHexDigit) && value == value.lowercased())
                }
            }
            #expect(["reveille", "dialout", "i2c", "spi"].contains(rule.assignments["GROUP"] ?? ""))
            #expect(rule.assignments["MODE"] == "0660")
        }
        #expect(rules.contains { $0.matches["SUBSYSTEM"] == "i2c-dev" && $0.assignments["GROUP"] == "i2c" })
        #expect(rules.contains { $0.matches["SUBSYSTEM"] == "spidev" && $0.assignments["GROUP"] == "spi" })
        #expect(
            rules.contains {
                $0.matches["DRIVERS"] == "gpio-keys" && $0.assignments["SYMLINK"] == "input/reveille-buttons"
            })
        #expect(rules.filter { $0.assignments["SYMLINK"] == "nfc-reader" }.count == 9)
    }

    @Test func aBrokenRuleIsCaught() {
        #expect(throws: HarnessError.self) { try Self.parseRules(#"SUBSYSTEM=="usb" GROUP="reveille""#) }
        #expect(throws: HarnessError.self) { try Self.parseRules(#"SUBSYSTEM=="usb", GROUP=="reveille""#) }
        #expect(throws: HarnessError.self) { try Self.parseRules(#"SUBSYSTEM=="usb""#) }
    }

    @Test func theBlacklistKeepsTheKernelsNFCDriversOff() throws {
        let lines = try Self.text("udev/reveille-nfc-blacklist.conf").split(separator: "\n").filter {
            !$0.hasPrefix("#")
        }
        #expect(lines == ["blacklist pn533_usb", "blacklist pn533", "blacklist nfc"])
    }

    @Test func makeInstallPutsEveryFileInPlaceKeepsEditedSettingsAndUninstalls() throws {
        #expect(
            FileManager.default.fileExists(atPath: Self.manPages.appendingPathComponent("reveille/reveille.1").path),
            "no man pages: run 'make man' first (make test does)")
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-install-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let script = Self.package.appendingPathComponent("scripts/install.sh")
        let environment = ["DESTDIR": destination, "PREFIX": "/usr/local"]
        let install = try runProcess(
            script, ["install", Binaries.directory.path, Self.manPages.path], environment: environment)
        #expect(install.status == 0, "\(install)")
        let expected: [(String, Int)] = [
            ("/usr/local/bin/reveilled", 0o755), ("/usr/local/bin/reveille", 0o755),
            ("/usr/local/bin/reveille-calendar", 0o755),
            ("/usr/local/lib/systemd/system/reveille-mqtt.service", 0o644),
            ("/usr/local/share/man/man8/reveille-mqtt.8", 0o644),
            ("/usr/local/lib/systemd/system/reveille.service", 0o644),
            ("/usr/local/lib/systemd/system/reveille-web.service", 0o644),
            ("/usr/local/lib/systemd/system/reveille-calendar.service", 0o644),
            ("/usr/local/lib/systemd/system/reveille-calendar.timer", 0o644),
            ("/usr/local/lib/sysusers.d/reveille.conf", 0o644), ("/usr/local/lib/tmpfiles.d/reveille.conf", 0o644),
            ("/etc/udev/rules.d/70-reveille.rules", 0o644), ("/etc/modprobe.d/reveille-nfc.conf", 0o644),
            ("/etc/reveille/reveille.toml", 0o644), ("/usr/local/share/bash-completion/completions/reveille", 0o644),
            ("/usr/local/share/zsh/site-functions/_reveille", 0o644),
            ("/usr/local/share/fish/vendor_completions.d/reveille.fish", 0o644),
            ("/usr/local/share/man/man1/reveille.1", 0o644), ("/usr/local/share/man/man8/reveilled.8", 0o644),
            ("/usr/local/share/man/man8/reveille-web.8", 0o644),
            ("/usr/local/share/man/man8/reveille-calendar.8", 0o644),
            ("/usr/local/share/doc/reveille/README.md", 0o644), ("/usr/local/share/doc/reveille/hardware.md", 0o644),
            ("/usr/local/share/doc/reveille/guide/README.md", 0o644),
            ("/usr/local/share/doc/reveille/guide/smart-home.md", 0o644),
            ("/usr/local/share/man/man5/reveille.toml.5", 0o644), ("/usr/local/share/man/man5/apps.toml.5", 0o644),
            ("/usr/local/share/doc/reveille/reveille.toml.example", 0o644),
            ("/usr/local/share/doc/reveille/apps.toml.example", 0o644), ("/etc/reveille/apps.toml", 0o644),
        ]
        for (path, mode) in expected {
            let attributes = try? FileManager.default.attributesOfItem(atPath: destination + path)
            #expect((attributes?[.posixPermissions] as? Int) == mode, "\(path)")
        }
        // The daemon and the page's server are one program: `reveille-web` is a link to
        // `reveilled`, which becomes what it is called.
        let link = destination + "/usr/local/bin/reveille-web"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "reveilled")
        // So is the MQTT bridge: it opens libmosquitto itself, so the daemon never maps it.
        let bridge = destination + "/usr/local/bin/reveille-mqtt"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: bridge)) == "reveilled")
        let daemonHelp = try runProcess(URL(fileURLWithPath: destination + "/usr/local/bin/reveilled"), ["--help"])
        #expect(daemonHelp.stdout.contains("The Reveille alarm clock daemon."), "\(daemonHelp)")
        let webHelp = try runProcess(URL(fileURLWithPath: destination + "/usr/local/bin/reveille-web"), ["--help"])
        #expect(webHelp.stdout.contains("Serves the clock's screen"), "\(webHelp)")
        let bridgeHelp = try runProcess(URL(fileURLWithPath: bridge), ["--help"])
        #expect(bridgeHelp.stdout.contains("Shows the clock in Home Assistant"), "\(bridgeHelp)")
        let cliHelp = try runProcess(URL(fileURLWithPath: destination + "/usr/local/bin/reveille"), ["--help"])
        #expect(cliHelp.stdout.contains("USAGE: reveille [--root <dir>] <subcommand>"), "\(cliHelp)")
        let unit = try String(
            contentsOfFile: destination + "/usr/local/lib/systemd/system/reveille.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/local/bin/reveilled\n"))
        #expect(!unit.contains("@"))
        #expect(try Self.verify(unit: unit, binary: destination + "/usr/local/bin/reveilled").status == 0)
        let bash = try String(
            contentsOfFile: destination + "/usr/local/share/bash-completion/completions/reveille", encoding: .utf8)
        #expect(bash.contains("tag") && bash.contains("sound"))
        let man = try String(contentsOfFile: destination + "/usr/local/share/man/man1/reveille.1", encoding: .utf8)
        #expect(man.contains("Register the NFC tags that stop alarms."))
        #expect(
            try String(contentsOfFile: destination + "/usr/local/share/man/man8/reveilled.8", encoding: .utf8).contains(
                ".Dt REVEILLED 8"))
        var hooks: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: destination + "/etc/reveille/hooks.d", isDirectory: &hooks)
                && hooks.boolValue)

        // An edited settings file survives a second install.
        let settings = destination + "/etc/reveille/reveille.toml"
        try "[audio]\nvolume = 55\n".write(toFile: settings, atomically: true, encoding: .utf8)
        let again = try runProcess(
            script, ["install", Binaries.directory.path, Self.manPages.path], environment: environment)
        #expect(again.status == 0)
        #expect(again.stdout.contains("kept \(settings) (yours)"))
        #expect(try String(contentsOfFile: settings, encoding: .utf8) == "[audio]\nvolume = 55\n")

        let uninstall = try runProcess(script, ["uninstall"], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall)")
        for (path, _) in expected where !path.hasPrefix("/etc/reveille/") {
            #expect(!FileManager.default.fileExists(atPath: destination + path), "\(path) left behind")
        }
        #expect(FileManager.default.fileExists(atPath: settings))
    }
}
