import TOMLKit
import Foundation

/// The daemon's settings: `/etc/reveille/reveille.toml` (under `--root` in development). Every
/// setting is optional; a missing file means the embedded defaults.
public struct Settings: Sendable, Equatable {
    /// IANA zone for alarm times; nil: the system's, followed when it changes.
    public var timeZone: String?
    public var missedGraceMinutes = 15
    public var maxRingMinutes = 30
    public var adminGroup = "reveille-admin"
    public var socketGroup = "reveille"
    public var audio = Audio()
    public var nfc = NFC()
    public var apps = Apps()

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
        /// ALSA PCM names tried in order, then `default`.
        public var devices: [String] = []
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
        "time_zone", "missed_grace_minutes", "max_ring_minutes", "admin_group", "socket_group", "audio", "nfc", "apps",
    ]
    static let appsKeys = ["warn_minutes", "kill_grace_seconds"]
    static let nfcKeys = ["device", "idle_check_minutes"]
    static let audioKeys = [
        "devices", "sound", "volume", "fade_in_seconds", "retry_seconds", "mixer_control", "mixer_card", "mixer_level",
    ]

    public static func parse(_ document: TOMLDocument) throws(ConfigError) -> Settings {
        let root = document.root
        try document.checkKeys(root, in: nil, known: topKeys)
        var settings = Settings()
        if let zone = try document.string(root, "time_zone", in: nil) {
            guard TimeZone(identifier: zone) != nil else {
                throw document.error("time_zone", in: nil, "\"\(zone)\" is not an IANA zone; try \"Europe/Berlin\"")
            }
            settings.timeZone = zone
        }
        settings.missedGraceMinutes =
            try document.int(root, "missed_grace_minutes", in: nil, range: 0...1440) ?? settings.missedGraceMinutes
        settings.maxRingMinutes =
            try document.int(root, "max_ring_minutes", in: nil, range: 0...1440) ?? settings.maxRingMinutes
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

    private static func parseAudio(_ table: TOMLTable, _ document: TOMLDocument) throws(ConfigError) -> Audio {
        let section = "audio"
        try document.checkKeys(table, in: section, known: audioKeys)
        var audio = Audio()
        if let devices = try document.strings(table, "devices", in: section) {
            if let empty = devices.first(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw document.error(
                    "devices", in: section, "\"\(empty)\" is not a device name; see `reveille sound devices`")
            }
            audio.devices = devices
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
