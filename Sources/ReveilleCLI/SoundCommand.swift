import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleProtocol
import ReveilleCore

struct SoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sound", abstract: "Try the alarm sound, list sound files and audio devices.",
        subcommands: [Test.self, Stop.self, List.self, Devices.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sound files alarms may take (what the page offers).",
            discussion: """
                The audio files (WAV, FLAC, Ogg, MP3) everyone may read under /usr/local/share/sounds \
                and /usr/share/sounds, and those alarms name. Give one to an alarm with --sound FILE.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let sounds = try send(.soundList, to: connection).sounds ?? []
            if output.json { return printJSON(sounds) }
            guard !sounds.isEmpty else {
                return print("no sound files; put WAV, FLAC, Ogg or MP3 files in /usr/local/share/sounds")
            }
            for sound in sounds { print(sound) }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "End a sound test that is playing (never an alarm: dismiss that).")

        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.soundStop, to: connection)) }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Play a sound through the daemon, as an alarm would.",
            discussion: """
                Plays FILE (default: the configured sound, else the built-in tone) on the configured \
                devices in order, then 'default', and says which one took it. An unreadable file \
                plays the built-in tone instead, and says why. Refused while an alarm rings.
                """)

        @Argument(help: ArgumentHelp("A WAV, FLAC, Ogg or MP3 file.", valueName: "file"))
        var file: String?

        @Option(name: .long, help: ArgumentHelp("Only this ALSA device, like plughw:CARD=Device.", valueName: "device"))
        var device: String?

        @Option(name: .long, help: ArgumentHelp("How long to play, 1-300.", valueName: "seconds"))
        var seconds = 5

        @Option(name: .long, help: ArgumentHelp("0-100 (default: the configured alarm volume).", valueName: "volume"))
        var volume: Int?

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let path = file.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
            let response = try send(
                .soundTest(file: path, device: device, seconds: seconds, volume: volume), to: connection)
            guard let playback = response.playback else { return }
            if output.json { return printJSON(playback) }
            for problem in playback.problems { print("note: \(problem)") }
            print("Playing \(playback.source) on \(playback.device ?? "?") for \(playback.seconds) s.")
        }
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List the ALSA devices sound can go to (as 'aplay -L' does).",
            discussion: """
                Put the names to use, in order, in reveille.toml: [audio] devices = ["..."]. Prefer \
                'plughw:' names to 'hw:' ones: ALSA's plug layer converts the sound to what the card takes.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let devices = try send(.soundDevices, to: connection).devices ?? []
            if output.json { return printJSON(devices) }
            guard !devices.isEmpty else { return print("no ALSA devices (is alsa-lib's configuration installed?)") }
            var table = Table("DEVICE", "DESCRIPTION")
            for device in devices { table.add(device.name, device.description) }
            table.print()
        }
    }
}
