import Foundation
import ReveilleCore
import Testing

@testable import ReveilleConfig

@Suite struct SettingsTests {
    private func parse(_ text: String) throws(ConfigError) -> Settings {
        try Settings.parse(TOMLDocument(path: "reveille.toml", text: text))
    }

    private func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func anEmptyFileIsTheDefaults() throws {
        #expect(try parse("") == Settings())
        let defaults = Settings()
        #expect(defaults.missedGraceMinutes == 15)
        #expect(defaults.maxRingMinutes == 30)
        #expect(defaults.audio.devices.isEmpty)
        #expect(defaults.audio.volume == 80)
        #expect(defaults.audio.fadeInSeconds == 30)
    }

    @Test func theWebSectionSaysWhereThePageIsServed() throws {
        #expect(Settings().web.address == "127.0.0.1" && Settings().web.port == 8080 && Settings().web.loopbackOnly)
        let home = try parse("[web]\naddress = \"0.0.0.0\"\nport = 80\n")
        #expect(home.web.address == "0.0.0.0" && home.web.port == 80 && !home.web.loopbackOnly)
        #expect(try parse("[web]\naddress = \"::1\"\n").web.loopbackOnly)
        #expect(
            error("[web]\naddress = \"my-pi\"\n")
                == "reveille.toml:2: [web] address: \"my-pi\" is not an IP address; \"127.0.0.1\" serves the kiosk "
                + "only, \"0.0.0.0\" the home network too")
        #expect(error("[web]\nport = 70000\n").hasPrefix("reveille.toml:2: [web] port"))
        #expect(error("[web]\nlisten = 1\n").contains("listen"))
        #expect(try parse("[web]\nkiosk_user = \"pi\"\n").web.kioskUser == "pi")
        #expect(Settings().web.kioskUser == nil)
        #expect(error("[web]\nkiosk_user = \"a b\"\n").contains("is not a user name"))
        #expect(error("[web]\nkiosk_user = \"\"\n").contains("is not a user name"))
    }

    /// Where another device opens the page: what `web pair` prints and Home Assistant links to.
    @Test func thePagesAddressFromAnotherDevice() throws {
        #expect(Settings().web.pageURL(machineName: "clock") == nil)
        #expect(
            try parse("[web]\naddress = \"0.0.0.0\"\n").web.pageURL(machineName: "clock") == "http://clock.local:8080/")
        #expect(
            try parse("[web]\naddress = \"::\"\n").web.pageURL(machineName: "clock.home.arpa")
                == "http://clock.home.arpa:8080/")
        #expect(
            try parse("[web]\naddress = \"192.168.1.20\"\nport = 80\n").web.pageURL(machineName: "clock")
                == "http://192.168.1.20:80/")
        #expect(
            try parse("[web]\naddress = \"fd00::20\"\n").web.pageURL(machineName: "clock") == "http://[fd00::20]:8080/")
        #expect(
            try parse("[web]\naddress = \"0.0.0.0\"\nhosts = [\"wecker.fritz.box\"]\n").web.pageURL(
                machineName: "clock", port: 8081) == "http://wecker.fritz.box:8081/")
    }

    @Test func theMQTTAreaIsARoomsName() throws {
        #expect(try parse("[mqtt]\nhost = \"b\"\n").mqtt?.area == nil)
        #expect(try parse("[mqtt]\nhost = \"b\"\narea = \" Bedroom \"\n").mqtt?.area == "Bedroom")
        #expect(try parse("[mqtt]\nhost = \"b\"\narea = \"Schlafzimmer 2\"\n").mqtt?.area == "Schlafzimmer 2")
        for bad in ["", "   ", String(repeating: "x", count: 41), "a\\u0007b"] {
            #expect(
                error("[mqtt]\nhost = \"b\"\narea = \"\(bad)\"\n").contains(
                    "[mqtt] area: \"")
                    && error("[mqtt]\nhost = \"b\"\narea = \"\(bad)\"\n").contains("is not a room's name"))
        }
    }

    @Test func aMissingFileIsTheDefaults() throws {
        #expect(try Settings.load(path: "/nonexistent/reveille.toml") == Settings())
    }

    @Test func everySettingIsRead() throws {
        let settings = try parse(
            """
            # Reveille settings
            time_zone = "Europe/Berlin"
            missed_grace_minutes = 5
            max_ring_minutes = 0
            admin_group = "wheel"
            socket_group = "users"

            [audio]
            devices = ["plughw:CARD=Device,DEV=0", "file:'/tmp/x.wav',wav"]
            sound = "/usr/share/sounds/alarm.flac"
            volume = 65
            fade_in_seconds = 10
            retry_seconds = 3
            mixer_control = "PCM"
            mixer_card = "hw:1"
            mixer_level = 90

            [apps]
            warn_minutes = 2
            kill_grace_seconds = 30
            """)
        #expect(settings.apps.warnMinutes == 2 && settings.apps.killGraceSeconds == 30)
        #expect(settings.timeZone == "Europe/Berlin")
        #expect(settings.missedGraceMinutes == 5)
        #expect(settings.maxRingMinutes == 0)
        #expect(settings.adminGroup == "wheel")
        #expect(settings.socketGroup == "users")
        #expect(settings.audio.devices == ["plughw:CARD=Device,DEV=0", "file:'/tmp/x.wav',wav"])
        #expect(settings.audio.sound == "/usr/share/sounds/alarm.flac")
        #expect(settings.audio.volume == 65)
        #expect(settings.audio.fadeInSeconds == 10)
        #expect(settings.audio.retrySeconds == 3)
        #expect(settings.audio.mixerControl == "PCM")
        #expect(settings.audio.mixerCard == "hw:1")
        #expect(settings.audio.mixerLevel == 90)
    }

    @Test func errorsNameTheFileTheLineAndTheFix() {
        #expect(
            error("\n[audio]\nvolume = 150\n")
                == "reveille.toml:3: [audio] volume: 150 is out of range; use 0-100")
        #expect(
            error("[audio]\ndevices = \"default\"\n")
                == "reveille.toml:2: [audio] devices: must be a list of strings, like [\"plughw:CARD=Device\", \"default\"]"
        )
        #expect(
            error("[audio]\nvolum = 50\n")
                == "reveille.toml:2: [audio] volum: unknown setting; known here: devices, backup_devices, sound, volume, fade_in_seconds, retry_seconds, mixer_control, mixer_card, mixer_level"
        )
        #expect(
            error("time_zone = \"Mars/Olympus\"")
                == "reveille.toml:1: time_zone: \"Mars/Olympus\" is not a time zone (none such in /usr/share/zoneinfo); try \"Europe/Berlin\""
        )
        #expect(error("max_ring_minutes = \"ten\"") == "reveille.toml:1: max_ring_minutes: must be a whole number")
        #expect(
            error("[audio]\nsound = \"alarm.wav\"")
                == "reveille.toml:2: [audio] sound: \"alarm.wav\": give the file's absolute path")
        #expect(error("audio = 3") == "reveille.toml:1: audio: must be a section: [audio]")
        #expect(
            error("[audio]\ndevices = [\"\"]").hasPrefix("reveille.toml:2: [audio] devices: \"\" is not a device name"))
    }

    @Test func syntaxErrorsNameTheirLine() {
        let message = error("time_zone = \"Europe/Berlin\"\nmax_ring_minutes = = 3\n")
        #expect(message.hasPrefix("reveille.toml:2: "), "\(message)")
    }

    @Test func anUnreadableFileSaysSo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-binary.toml").path
        try Data([0xFF, 0xFE, 0x00, 0x80]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigError.self) { try Settings.load(path: path) }
    }

    @Test func theKeysAreReadByTheirKernelNames() throws {
        let settings = try parse(
            """
            [input]
            devices = ["/dev/input/by-path/platform-gpio-keys-event"]
            snooze_keys = ["BTN_0", "KEY_SPACE"]
            enter_keys = ["KEY_KPENTER"]
            long_press_ms = 2000
            answer_timeout_seconds = 30
            [voice]
            voice = "de"
            words_per_minute = 130
            say_time_when_idle = false
            """)
        #expect(settings.input.devices == ["/dev/input/by-path/platform-gpio-keys-event"])
        #expect(settings.input.keyMap[0x100] == .snooze)
        #expect(settings.input.keyMap[57] == .snooze)
        #expect(settings.input.keyMap[96] == .enter)
        #expect(settings.input.keyMap[28] == nil, "KEY_ENTER is not an enter key once enter_keys is given")
        #expect(settings.input.keyMap[82] == .digit(0), "KEY_KP0")
        #expect(settings.input.keyMap[11] == .digit(0), "KEY_0")
        #expect(settings.input.keyMap[55] == .answer, "the default answer key stays")
        #expect(settings.input.longPressMilliseconds == 2000)
        #expect(settings.voice.voice == "de")
        #expect(!settings.voice.sayTimeWhenIdle)
        #expect(Settings().input.devices == nil, "by default every input device with a mapped key is used")
    }

    @Test func aTypoInAKeyNameNamesTheLineAndTheFix() {
        #expect(
            error("[input]\nsnooze_keys = [\"KEY_SPCE\"]\n").hasPrefix(
                "reveille.toml:2: [input] snooze_keys: \"KEY_SPCE\" is not a kernel key name; use names from linux/input-event-codes.h"
            ))
        #expect(
            error("[input]\nsnooze_keys = [\"KEY_KP5\"]\n")
                == "reveille.toml:2: [input] snooze_keys: KEY_KP5 is already the digit 5 key; give each key one job")
        #expect(
            error("[input]\nsnooze_keys = [\"KEY_A\"]\nenter_keys = [\"KEY_A\"]\n")
                == "reveille.toml:3: [input] enter_keys: KEY_A is already the snooze key; give each key one job")
        #expect(error("[input]\ndevices = [\"event0\"]\n").contains("give the device file's absolute path"))
        #expect(error("[input]\nlong_press_ms = 50\n").contains("50 is out of range; use 300-10000"))
        #expect(error("[voice]\nenabled = \"yes\"\n").contains("[voice] enabled: must be true or false"))
        #expect(error("[voice]\nvoice = \"en us\"\n").contains("is not a voice name; see espeak-ng --voices"))
    }

    @Test func aKeyGivenAwayFromItsDefaultJobIsNotAConflict() throws {
        // KEY_SPACE snoozes by default; named as the answer key, it answers instead.
        let settings = try parse("[input]\nanswer_keys = [\"KEY_SPACE\"]\n")
        #expect(settings.input.keyMap[57] == .answer)
        #expect(settings.input.keyMap[0x100] == .snooze, "BTN_0 still snoozes")
    }
}

/// The commented example that `make install` puts in /etc/reveille.
@Suite struct ExampleSettingsTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/reveille.toml").path

    @Test func theExampleAsShippedIsTheDefaults() throws {
        #expect(try Settings.load(path: Self.example) == Settings())
    }

    @Test func everyCommentedSettingInTheExampleIsValid() throws {
        let text = try String(contentsOfFile: Self.example, encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && (line.dropFirst().first?.isLetter == true || line.hasPrefix("#[mqtt]"))
                ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
        let settings = try Settings.parse(TOMLDocument(path: "example", text: uncommented))
        #expect(settings.timeZone == "Europe/Berlin")
        #expect(settings.mqtt?.host == "homeassistant.local" && settings.mqtt?.baseTopic == "reveille/HOSTNAME")
        #expect(settings.audio.devices == ["plughw:CARD=Device,DEV=0"])
        #expect(settings.audio.backupDevices == ["plughw:CARD=Headphones,DEV=0"])
        #expect(settings.audio.mixerControl == "PCM")
        #expect(settings.input.devices?.count == 2)
        var expected = settings
        expected.input.devices = nil
        #expect(settings.nfc.device == "pn532_uart:/dev/nfc-reader")
        expected.nfc.device = nil
        expected.timeZone = nil
        expected.audio.devices = []
        expected.audio.backupDevices = []
        expected.audio.sound = nil
        expected.audio.mixerControl = nil
        #expect(settings.web.kioskUser == "reveille-kiosk")  // what nil means when installed
        expected.web.kioskUser = nil
        var mqtt = Settings.MQTT(host: "homeassistant.local")
        mqtt.caFile = "/etc/reveille/mqtt-ca.pem"
        mqtt.username = "reveille"
        mqtt.passwordFile = "/etc/reveille/mqtt-password"
        mqtt.baseTopic = "reveille/HOSTNAME"
        mqtt.household = "smiths"  // an example: no household is the default
        mqtt.hubKey = "7KQ2-M9XC-40TF-HZ3D"  // an example: a member pins its hub's code
        mqtt.area = "Bedroom"  // an example: no room is suggested by default
        #expect(settings.mqtt == mqtt, "the example's [mqtt] values are the defaults")
        expected.mqtt = nil
        #expect(expected == Settings(), "the example's values are the defaults")
    }

}
