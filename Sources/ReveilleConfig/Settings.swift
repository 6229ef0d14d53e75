import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleInput
import TOMLKit

/// The daemon's settings: `/etc/reveille/reveille.toml` (under `--root` in development). Every
/// setting is optional; a missing file means the embedded defaults.
public struct Settings: Sendable, Equatable {
    /// IANA zone for alarm times; nil: the system's, followed when it changes.
    public var timeZone: String?
    public var missedGraceMinutes = 15
    public var maxRingMinutes = 30
    /// How long the wake-up check waits for "yes, I am up" before the alarm rings again.
    public var wakeCheckSeconds = 60
    /// How long before it the next ring may be dismissed early, with its challenge (0: never).
    public var earlyDismissMinutes = 60
    public var adminGroup = "reveille-admin"
    public var socketGroup = "reveille"
    public var audio = Audio()
    public var nfc = NFC()
    public var apps = Apps()
    public var input = Input()
    public var voice = VoiceSettings()
    public var web = Web()
    public var screen = Screen()
    public var wifi = Wifi()
    /// nil: no `[mqtt]` table, and `reveille-mqtt` has nothing to do.
    public var mqtt: MQTT?

    /// The `[mqtt]` section: `reveille-mqtt`'s broker, for Home Assistant.
    public struct MQTT: Sendable, Equatable {
        public var host: String
        public var port = 1883
        /// A CA certificate file: the broker is reached over TLS and must present a certificate it
        /// signed (with the host name above). nil: plain MQTT.
        public var caFile: String?
        public var username: String?
        /// A file holding the password, readable by the bridge's user only.
        public var passwordFile: String?
        /// Where the clock's topics live: `reveille/HOSTNAME` when not set.
        public var baseTopic: String?
        public var discoveryPrefix = "homeassistant"
        /// Whether a child's requests for more time may be answered over MQTT.
        public var approvals = false
        public var keepaliveSeconds = 60
        /// The household's name: every machine with the same one counts a limited user's time
        /// together (docs/guide/smart-home.md, "One limit across the household's machines"). nil: this machine alone.
        public var household: String?
        /// Whether this machine is the household's hub: its app policy and today's grants are the
        /// household's, and every other machine of the household follows them.
        public var hub = false
        /// The room Home Assistant puts the clock in when it first sees it ("Bedroom"); nil: none.
        public var area: String?
        /// On a member, the code of the hub's household key (`reveille-mqtt --household-key` on
        /// the hub): the hub's messages are taken only when that key signed them.
        public var hubKey: String?
        /// On the hub, the household's other machines by MQTT user name, with their keys' codes:
        /// only their counts are taken, and the hub lists them to the members.
        public var machines: [String: String] = [:]

        /// A machine of a household that is not its hub: it follows the hub's policy and grants.
        public var followsHub: Bool { household != nil && !hub }

        public init(host: String) {
            self.host = host
        }
    }

    /// The `[web]` section: where `reveille-web` listens.
    public struct Web: Sendable, Equatable {
        /// An IP address of this machine: loopback (the kiosk screen only) unless the household
        /// network is opted into, with `0.0.0.0`, `::` or the address of one interface.
        public var address = "127.0.0.1"
        public var port = 8080
        /// Names the page is also served under (besides IP addresses, `localhost` and this machine's
        /// host name): a DNS name a household gave the clock. Any other `Host` is refused.
        public var hosts: [String] = []
        /// The local account whose browsers on this machine are the kiosk: the household's rights
        /// without pairing. Any other local user's browser pairs, as a phone does. nil: the
        /// package's `reveille-kiosk` when installed; under `--root`, whoever runs reveille-web.
        public var kioskUser: String?

        /// Whether browsers reach it only from this machine.
        public var loopbackOnly: Bool { address == "::1" || address.hasPrefix("127.") || address == "localhost" }

        /// The host another device opens the page at: the first of `hosts` (a name the household
        /// gave the clock), else the one address it listens on, else this machine's name on the
        /// local network (`NAME.local`, mDNS) when it listens on every address.
        public func hostForOthers(machineName: String) -> String {
            if let named = hosts.first { return named }
            guard address == "0.0.0.0" || address == "::" else { return address }
            return machineName.contains(".") || machineName.isEmpty ? machineName : machineName + ".local"
        }

        /// The page's address from another device (`web pair`'s, and Home Assistant's link to the
        /// clock); nil when only this machine reaches it.
        public func pageURL(machineName: String, port: Int? = nil) -> String? {
            guard !loopbackOnly else { return nil }
            let host = hostForOthers(machineName: machineName)
            return "http://\(host.contains(":") ? "[\(host)]" : host):\(port ?? self.port)/"
        }

        public init() {}
    }

    /// The `[input]` section: bedside buttons and keypads (evdev).
    public struct Input: Sendable, Equatable {
        /// Device files (`/dev/input/by-path/...`, `/dev/input/by-id/...`); nil: every device in
        /// /dev/input that reports one of the mapped keys; empty: none.
        public var devices: [String]?
        public var keyMap = Input.keyMap(digitsAnd: [:], given: [])
        /// Holding the snooze key this long says the problem again.
        public var longPressMilliseconds = 1500
        /// Digits typed and then left alone this long are cleared.
        public var answerTimeoutSeconds = 20

        /// The key lists of `[input]`, their defaults, and what their keys mean. The digits are
        /// always KEY_0-KEY_9 and KEY_KP0-KEY_KP9.
        static let keyLists: [(setting: String, defaults: [String], meaning: BedsideKey)] = [
            ("snooze_keys", ["KEY_SPACE", "BTN_0"], .snooze), ("answer_keys", ["KEY_KPASTERISK"], .answer),
            ("enter_keys", ["KEY_KPENTER", "KEY_ENTER"], .enter), ("backspace_keys", ["KEY_BACKSPACE"], .backspace),
        ]

        /// The digits, then `keys` (the lists given, checked), then the defaults of the lists not
        /// `given`, where their keys are still free.
        static func keyMap(digitsAnd keys: [UInt16: BedsideKey], given: Set<String>) -> KeyMap {
            var map = keys
            for digit in 0...9 {
                for name in ["KEY_\(digit)", "KEY_KP\(digit)"] where map[KeyNames.code(name)!] == nil {
                    map[KeyNames.code(name)!] = .digit(digit)
                }
            }
            for list in keyLists where !given.contains(list.setting) {
                for name in list.defaults where map[KeyNames.code(name)!] == nil {
                    map[KeyNames.code(name)!] = list.meaning
                }
            }
            return KeyMap(map)
        }

        public init() {}
    }

    /// The `[wifi]` section: the set-up network of a clock with no screen (hardware.md, "Wi-Fi").
    public struct Wifi: Sendable, Equatable {
        /// `auto`: opened when the first set-up is pending, no network is up and there is no
        /// screen; `always`: with a screen too; `never`.
        public var setupNetwork = "auto"
        /// How long after its start the clock waits for a network before it opens its own.
        public var setupNetworkWaitSeconds = 20

        public init() {}
    }

    /// The `[screen]` section: the display's backlight (hardware.md, "The screen's backlight").
    public struct Screen: Sendable, Equatable {
        /// A device of /sys/class/backlight by name; nil: the first there is ("auto"); "none":
        /// leave the backlight alone.
        public var backlight: String?
        public var backlightOff = false
        /// Brightness by day and at night (the page's night mode), in percent; a ring and "Are you
        /// up?" are at 100.
        public var dayPercent = 100
        public var nightPercent = 15

        public init() {}

        /// No backlight driven.
        public static var none: Screen {
            var screen = Screen()
            screen.backlightOff = true
            return screen
        }
    }

    /// The `[voice]` section: espeak-ng saying the problem.
    public struct VoiceSettings: Sendable, Equatable {
        public var enabled = true
        /// An espeak-ng voice: `en`, `en-us`, `de`, `fr`...
        public var voice = "en"
        public var wordsPerMinute = 150
        /// A button pressed while nothing rings says the time and the next ring.
        public var sayTimeWhenIdle = true
        /// A reminder's chime is followed by its text, spoken (never over a ringing alarm).
        public var speakReminders = true

        public init() {}
    }

    /// The `[apps]` section: how running apps are told their time is up.
    public struct Apps: Sendable, Equatable {
        /// Minutes of warning before a window closes or the day's minutes run out.
        public var warnMinutes = 5
        /// Seconds between SIGTERM and SIGKILL.
        public var killGraceSeconds = 10

        public init() {}
    }

    /// The `[nfc]` section.
    public struct NFC: Sendable, Equatable {
        /// A libnfc connstring (`pn532_uart:/dev/ttyS0`, `pn532_i2c:/dev/i2c-1`, `acr122_usb`) or
        /// `auto` for libnfc's detection; nil: no reader, alarms are dismissed by math.
        public var device: String?
        /// Minutes between health checks of an idle reader.
        public var idleCheckMinutes = 10

        public init() {}
    }

    /// The `[audio]` section.
    public struct Audio: Sendable, Equatable {
        /// ALSA PCM names tried in order, then `backupDevices`, then `default`.
        public var devices: [String] = []
        /// Where an alarm's sound goes when those fail (or stall) while it rings.
        public var backupDevices: [String] = []
        /// The sound of alarms that name none; nil: the built-in tone.
        public var sound: String?
        /// Volume (0-100) and fade-in of alarms added without --volume or --fade-in.
        public var volume = 80
        public var fadeInSeconds = 30
        /// Seconds between rounds of trying every device when none works.
        public var retrySeconds = 5
        /// A mixer control turned up to `mixerLevel` at ring start.
        public var mixerControl: String?
        public var mixerCard = "default"
        public var mixerLevel = 100

        public init() {}
    }

    public init() {}

    /// Reads `path`; a missing file gives the defaults. Fails with the file, the line and the fix.
    public static func load(path: String) throws(ConfigError) -> Settings {
        guard FileManager.default.fileExists(atPath: path) else { return Settings() }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw ConfigError(path: path, line: nil, message: "cannot be read as UTF-8 text; check its permissions")
        }
        return try parse(TOMLDocument(path: path, text: text))
    }

    static let topKeys = [
        "time_zone", "missed_grace_minutes", "max_ring_minutes", "wake_check_seconds", "early_dismiss_minutes",
        "admin_group", "socket_group",
        "audio", "nfc", "apps",
        "input", "voice", "web", "screen", "wifi", "mqtt",
    ]
    static let wifiKeys = ["setup_network", "setup_network_wait_seconds"]
    static let screenKeys = ["backlight", "day_percent", "night_percent"]
    static let mqttKeys = [
        "host", "port", "ca_file", "username", "password_file", "base_topic", "discovery_prefix", "approvals",
        "keepalive_seconds", "household", "hub", "hub_key", "machines", "area",
    ]
    static let webKeys = ["address", "port", "hosts", "kiosk_user"]
    static let inputKeys = [
        "devices", "snooze_keys", "answer_keys", "enter_keys", "backspace_keys", "long_press_ms",
        "answer_timeout_seconds",
    ]
    static let voiceKeys = ["enabled", "voice", "words_per_minute", "say_time_when_idle", "speak_reminders"]
    static let appsKeys = ["warn_minutes", "kill_grace_seconds"]
    static let nfcKeys = ["device", "idle_check_minutes"]
    static let audioKeys = [
        "devices", "backup_devices", "sound", "volume", "fade_in_seconds", "retry_seconds", "mixer_control",
        "mixer_card", "mixer_level",
    ]

    public static func parse(_ document: TOMLDocument) throws(ConfigError) -> Settings {
        let root = document.root
        try document.checkKeys(root, in: nil, known: topKeys)
        var settings = Settings()
        if let zone = try document.string(root, "time_zone", in: nil) {
            guard ZoneInfo.isKnown(zone) else {
                throw document.error(
                    "time_zone", in: nil,
                    "\"\(zone)\" is not a time zone (none such in \(ZoneInfo.directory)); try \"Europe/Berlin\"")
            }
            settings.timeZone = zone
        }
        settings.missedGraceMinutes =
            try document.int(root, "missed_grace_minutes", in: nil, range: 0...1440) ?? settings.missedGraceMinutes
        settings.maxRingMinutes =
            try document.int(root, "max_ring_minutes", in: nil, range: 0...1440) ?? settings.maxRingMinutes
        settings.wakeCheckSeconds =
            try document.int(root, "wake_check_seconds", in: nil, range: 10...600) ?? settings.wakeCheckSeconds
        settings.earlyDismissMinutes =
            try document.int(root, "early_dismiss_minutes", in: nil, range: 0...720) ?? settings.earlyDismissMinutes
        settings.adminGroup = try document.string(root, "admin_group", in: nil) ?? settings.adminGroup
        settings.socketGroup = try document.string(root, "socket_group", in: nil) ?? settings.socketGroup
        if let audio = try document.table("audio") {
            settings.audio = try parseAudio(audio, document)
        }
        if let apps = try document.table("apps") {
            try document.checkKeys(apps, in: "apps", known: appsKeys)
            settings.apps.warnMinutes =
                try document.int(apps, "warn_minutes", in: "apps", range: 0...120) ?? settings.apps.warnMinutes
            settings.apps.killGraceSeconds =
                try document.int(apps, "kill_grace_seconds", in: "apps", range: 1...600)
                ?? settings.apps.killGraceSeconds
        }
        if let input = try document.table("input") {
            settings.input = try parseInput(input, document)
        }
        if let voice = try document.table("voice") {
            try document.checkKeys(voice, in: "voice", known: voiceKeys)
            settings.voice.enabled = try document.bool(voice, "enabled", in: "voice") ?? settings.voice.enabled
            if let name = try document.string(voice, "voice", in: "voice") {
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "+" }) else {
                    throw document.error(
                        "voice", in: "voice", "\"\(name)\" is not a voice name; see espeak-ng --voices")
                }
                settings.voice.voice = name
            }
            settings.voice.wordsPerMinute =
                try document.int(voice, "words_per_minute", in: "voice", range: 80...400)
                ?? settings.voice.wordsPerMinute
            settings.voice.sayTimeWhenIdle =
                try document.bool(voice, "say_time_when_idle", in: "voice") ?? settings.voice.sayTimeWhenIdle
            settings.voice.speakReminders =
                try document.bool(voice, "speak_reminders", in: "voice") ?? settings.voice.speakReminders
        }
        if let web = try document.table("web") {
            try document.checkKeys(web, in: "web", known: webKeys)
            if let address = try document.string(web, "address", in: "web") {
                var v4 = in_addr()
                var v6 = in6_addr()
                guard
                    address == "localhost" || inet_pton(AF_INET, address, &v4) == 1
                        || inet_pton(AF_INET6, address, &v6) == 1
                else {
                    throw document.error(
                        "address", in: "web",
                        "\"\(address)\" is not an IP address; \"127.0.0.1\" serves the kiosk only, \"0.0.0.0\" the home network too"
                    )
                }
                settings.web.address = address
            }
            settings.web.port = try document.int(web, "port", in: "web", range: 1...65535) ?? settings.web.port
            if let hosts = try document.strings(web, "hosts", in: "web") {
                for host in hosts
                where host.isEmpty || !host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) {
                    throw document.error(
                        "hosts", in: "web", "\"\(host)\" is not a host name; give names like \"clock.home.arpa\"")
                }
                settings.web.hosts = hosts
            }
            if let user = try document.string(web, "kiosk_user", in: "web") {
                guard !user.isEmpty, user.count <= 32,
                    user.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
                else {
                    throw document.error(
                        "kiosk_user", in: "web",
                        "\"\(user)\" is not a user name; give the account whose session shows the page, like \"pi\"")
                }
                settings.web.kioskUser = user
            }
        }
        if let wifi = try document.table("wifi") {
            try document.checkKeys(wifi, in: "wifi", known: wifiKeys)
            if let mode = try document.string(wifi, "setup_network", in: "wifi") {
                guard ["auto", "never", "always"].contains(mode) else {
                    throw document.error(
                        "setup_network", in: "wifi",
                        "\"\(mode)\" is not a choice; give \"auto\" (no screen: open it), \"always\" or \"never\"")
                }
                settings.wifi.setupNetwork = mode
            }
            settings.wifi.setupNetworkWaitSeconds =
                try document.int(wifi, "setup_network_wait_seconds", in: "wifi", range: 0...3600)
                ?? settings.wifi.setupNetworkWaitSeconds
        }
        if let screen = try document.table("screen") {
            try document.checkKeys(screen, in: "screen", known: screenKeys)
            if let name = try document.string(screen, "backlight", in: "screen") {
                guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."),
                    name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-:".contains($0)) })
                else {
                    throw document.error(
                        "backlight", in: "screen",
                        "\"\(name)\" is not a backlight's name; give one of ls /sys/class/backlight, \"auto\" or \"none\""
                    )
                }
                settings.screen.backlight = name == "auto" ? nil : name
                settings.screen.backlightOff = name == "none"
            }
            settings.screen.dayPercent =
                try document.int(screen, "day_percent", in: "screen", range: 1...100) ?? settings.screen.dayPercent
            settings.screen.nightPercent =
                try document.int(screen, "night_percent", in: "screen", range: 0...100) ?? settings.screen.nightPercent
        }
        if let mqtt = try document.table("mqtt") {
            settings.mqtt = try parseMQTT(mqtt, document)
        }
        if let nfc = try document.table("nfc") {
            try document.checkKeys(nfc, in: "nfc", known: nfcKeys)
            if let device = try document.string(nfc, "device", in: "nfc") {
                let isDriverName = !device.isEmpty && device.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                guard device == "auto" || device.contains(":") || isDriverName else {
                    throw document.error(
                        "device", in: "nfc",
                        "\"\(device)\": give a libnfc connstring like \"pn532_uart:/dev/ttyS0\", or \"auto\"")
                }
                settings.nfc.device = device
            }
            settings.nfc.idleCheckMinutes =
                try document.int(nfc, "idle_check_minutes", in: "nfc", range: 1...1440) ?? settings.nfc.idleCheckMinutes
        }
        return settings
    }

    private static func parseMQTT(_ table: TOMLTable, _ document: TOMLDocument) throws(ConfigError) -> MQTT {
        let section = "mqtt"
        try document.checkKeys(table, in: section, known: mqttKeys)
        guard let host = try document.string(table, "host", in: section) else {
            throw document.error(
                "host", in: section, "the broker's host name is missing; add host = \"broker.home.arpa\"")
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:".contains($0) }) else {
            throw document.error("host", in: section, "\"\(host)\" is not a host name or an IP address")
        }
        var mqtt = MQTT(host: host)
        mqtt.port = try document.int(table, "port", in: section, range: 1...65535) ?? mqtt.port
        for (key, path) in [
            ("ca_file", try document.string(table, "ca_file", in: section)),
            ("password_file", try document.string(table, "password_file", in: section)),
        ] {
            if let path, !path.hasPrefix("/") {
                throw document.error(key, in: section, "\"\(path)\" is not an absolute path; give the file's full path")
            }
        }
        mqtt.caFile = try document.string(table, "ca_file", in: section)
        mqtt.passwordFile = try document.string(table, "password_file", in: section)
        mqtt.username = try document.string(table, "username", in: section)
        if mqtt.passwordFile != nil && mqtt.username == nil {
            throw document.error("password_file", in: section, "a password needs a username; add username = \"...\"")
        }
        if let household = try document.string(table, "household", in: section) {
            guard !household.isEmpty, household.count <= 40,
                household.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw document.error(
                    "household", in: section, "\"\(household)\" is not a household's name: use letters, digits, - and _"
                )
            }
            mqtt.household = household
        }
        mqtt.hub = try document.bool(table, "hub", in: section) ?? false
        if mqtt.hub && mqtt.household == nil {
            throw document.error("hub", in: section, "a hub is a household's: add household = \"NAME\"")
        }
        if let code = try document.string(table, "hub_key", in: section) {
            guard mqtt.followsHub else {
                throw document.error(
                    "hub_key", in: section,
                    mqtt.hub
                        ? "the hub pins no hub: remove hub_key (the hub lists its machines in machines = [...])"
                        : "a hub key is a household's: add household = \"NAME\"")
            }
            guard let normalized = HouseholdCode.normalized(code) else {
                throw document.error(
                    "hub_key", in: section,
                    "\"\(code)\" is not a key's code: give the 16 letters and digits `reveille-mqtt --household-key` prints on the hub, like \"7KQ2-M9XC-40TF-HZ3D\""
                )
            }
            mqtt.hubKey = normalized
        }
        if let entries = try document.strings(table, "machines", in: section) {
            guard mqtt.hub else {
                throw document.error(
                    "machines", in: section,
                    "only the hub lists the household's machines: add hub = true, or remove machines")
            }
            for entry in entries {
                let parts = entry.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " }) }
                guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 40,
                    parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
                    let code = HouseholdCode.normalized(parts[1])
                else {
                    throw document.error(
                        "machines", in: section,
                        "\"\(entry)\" is not NAME=CODE: a machine's MQTT user name, =, and the code `reveille-mqtt --household-key` prints on it"
                    )
                }
                guard mqtt.machines[parts[0]] == nil else {
                    throw document.error("machines", in: section, "\(parts[0]) is listed twice; keep one")
                }
                mqtt.machines[parts[0]] = code
            }
            guard mqtt.machines.count < 32 else {
                throw document.error("machines", in: section, "a household has at most 31 machines besides its hub")
            }
        }
        for key in ["base_topic", "discovery_prefix"] {
            guard let topic = try document.string(table, key, in: section) else { continue }
            let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
            guard !topic.isEmpty, topic.utf8.count <= 100, !parts.contains(where: \.isEmpty),
                parts.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) } })
            else {
                throw document.error(
                    key, in: section,
                    "\"\(topic)\" is not a topic for this: use letters, digits, - and _ between single slashes, like \"home/clock\""
                )
            }
            if key == "base_topic" { mqtt.baseTopic = topic } else { mqtt.discoveryPrefix = topic }
        }
        if let area = try document.string(table, "area", in: section) {
            let trimmed = area.trimmed()
            guard !trimmed.isEmpty, trimmed.count <= 40,
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw document.error(
                    "area", in: section, "\"\(area)\" is not a room's name: give a short one, like \"Bedroom\"")
            }
            mqtt.area = trimmed
        }
        mqtt.approvals = try document.bool(table, "approvals", in: section) ?? mqtt.approvals
        mqtt.keepaliveSeconds =
            try document.int(table, "keepalive_seconds", in: section, range: 10...3600) ?? mqtt.keepaliveSeconds
        return mqtt
    }

    private static func parseInput(_ table: TOMLTable, _ document: TOMLDocument) throws(ConfigError) -> Input {
        let section = "input"
        try document.checkKeys(table, in: section, known: inputKeys)
        var input = Input()
        if let devices = try document.strings(table, "devices", in: section) {
            if let relative = devices.first(where: { !$0.hasPrefix("/") }) {
                throw document.error(
                    "devices", in: section,
                    "\"\(relative)\": give the device file's absolute path, like \"/dev/input/by-id/usb-...-event-kbd\""
                )
            }
            input.devices = devices
        }
        // The digits are taken first: a list may not give one of them another job.
        var keys = Input.keyMap(digitsAnd: [:], given: Set(Input.keyLists.map(\.setting))).keys
        var given: Set<String> = []
        for (setting, _, meaning) in Input.keyLists {
            guard let names = try document.strings(table, setting, in: section) else { continue }
            given.insert(setting)
            for name in names {
                guard let code = KeyNames.code(name) else {
                    throw document.error(
                        setting, in: section,
                        "\"\(name)\" is not a kernel key name; use names from linux/input-event-codes.h, like \"KEY_SPACE\", \"KEY_KPENTER\" or \"BTN_0\" (evtest shows a device's keys)"
                    )
                }
                if let taken = keys[code], taken != meaning {
                    throw document.error(
                        setting, in: section, "\(name) is already the \(taken) key; give each key one job")
                }
                keys[code] = meaning
            }
        }
        input.keyMap = Input.keyMap(digitsAnd: keys, given: given)
        input.longPressMilliseconds =
            try document.int(table, "long_press_ms", in: section, range: 300...10_000) ?? input.longPressMilliseconds
        input.answerTimeoutSeconds =
            try document.int(table, "answer_timeout_seconds", in: section, range: 5...300) ?? input.answerTimeoutSeconds
        return input
    }

    private static func parseAudio(_ table: TOMLTable, _ document: TOMLDocument) throws(ConfigError) -> Audio {
        let section = "audio"
        try document.checkKeys(table, in: section, known: audioKeys)
        var audio = Audio()
        if let devices = try document.strings(table, "devices", in: section) {
            if let empty = devices.first(where: { $0.trimmed(newlines: false).isEmpty }) {
                throw document.error(
                    "devices", in: section, "\"\(empty)\" is not a device name; see `reveille sound devices`")
            }
            audio.devices = devices
        }
        if let backups = try document.strings(table, "backup_devices", in: section) {
            if let empty = backups.first(where: { $0.trimmed(newlines: false).isEmpty }) {
                throw document.error(
                    "backup_devices", in: section, "\"\(empty)\" is not a device name; see `reveille sound devices`")
            }
            audio.backupDevices = backups
        }
        if let sound = try document.string(table, "sound", in: section), !sound.isEmpty {
            guard sound.hasPrefix("/") else {
                throw document.error("sound", in: section, "\"\(sound)\": give the file's absolute path")
            }
            audio.sound = sound
        }
        audio.volume = try document.int(table, "volume", in: section, range: 0...100) ?? audio.volume
        audio.fadeInSeconds =
            try document.int(table, "fade_in_seconds", in: section, range: 0...3600) ?? audio.fadeInSeconds
        audio.retrySeconds = try document.int(table, "retry_seconds", in: section, range: 1...300) ?? audio.retrySeconds
        audio.mixerControl = try document.string(table, "mixer_control", in: section)
        audio.mixerCard = try document.string(table, "mixer_card", in: section) ?? audio.mixerCard
        audio.mixerLevel = try document.int(table, "mixer_level", in: section, range: 0...100) ?? audio.mixerLevel
        return audio
    }
}
