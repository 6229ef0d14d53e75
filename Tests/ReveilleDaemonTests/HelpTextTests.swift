import ArgumentParser
import Foundation
import Testing
import ReveilleConfig
import ReveilleProtocol

@testable import ReveilleCLI

/// Help a tired person reads at 6 a.m.: checked word for word.
@Suite struct HelpTextTests {
    @Test func pauseHelp() {
        #expect(
            PauseCommand.helpMessage(columns: 80) == """
                OVERVIEW: Turn all alarms off, until 'reveille resume' or a date.

                USAGE: pause [--until <date>] [--root <dir>]

                OPTIONS:
                  --until <date>          The first day alarms ring again (YYYY-MM-DD or
                                          tomorrow).
                  --root <dir>            The daemon's root folder (default: $REVEILLE_ROOT,
                                          else /).
                  -h, --help              Show help information.

                """)
    }

    /// The argument normalizer must know which options take no value: every option a command's
    /// help shows without `<value>` is in `Arguments.flags`, and every name there is a real flag.
    @Test func theNormalizersFlagsAreTheCommandsFlags() {
        func commands(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
            [command] + command.configuration.subcommands.flatMap(commands)
        }
        var flags: Set<String> = []
        for command in commands(Reveille.self) {
            for line in command.helpMessage(columns: 200).split(separator: "\n") where line.hasPrefix("  -") {
                // The option's own names and value: `-h, --help`, `--days <days>`.
                let words = Array(line.split(separator: " ").prefix { $0.hasPrefix("-") || $0.hasPrefix("<") })
                for (index, word) in words.enumerated() where word.hasPrefix("--") {
                    let names = word.trimmingCharacters(in: CharacterSet(charactersIn: ","))
                        .split(separator: "/").map(String.init)  // --skip-holidays/--no-skip-holidays
                    let takesValue = words.indices.contains(index + 1) && words[index + 1].hasPrefix("<")
                    if !takesValue { flags.formUnion(names) }
                }
            }
        }
        #expect(flags.subtracting(Arguments.flags).isEmpty, "missing: \(flags.subtracting(Arguments.flags))")
        #expect(Arguments.flags.subtracting(flags).isEmpty, "not flags: \(Arguments.flags.subtracting(flags))")
    }

    @Test func topLevelHelpListsTheCommands() {
        let help = Reveille.helpMessage(columns: 100)
        #expect(help.hasPrefix("OVERVIEW: Manage the Reveille alarm clock.\n"))
        #expect(
            help.contains(
                """
                SUBCOMMANDS:
                  status                  Show the daemon's state and the next ring.
                  snooze                  Snooze the ringing alarm (free while snoozes remain).
                  awake                   Answer the wake-up check: "Are you up?" (yes).
                  unlock                  Pass an alarm's challenge, to change it within its commitment.
                  dismiss                 Stop the ringing (or snoozed) alarm by answering a math problem.
                  next                    List the coming rings, day by day, with the layer that decided each.
                  month                   A calendar of a month: each day's first ring and the layer that set it.
                  alarm                   Add, list, change and remove alarms.
                  rule                    Weekly rules: on these weekdays, stay off or ring at another time.
                  override                One-time date overrides: on this date, stay off or ring at another time.
                  pause                   Turn all alarms off, until 'reveille resume' or a date.
                  resume                  Turn alarms back on.
                  skip                    Silence only the next ring of an alarm (the next one of all, without an
                                          id).
                  history                 List past rings: when, snoozes, how and when they were stopped.
                  stats                   How the mornings went: snoozes, time to get up, missed alarms.
                  sound                   Try the alarm sound, list sound files and audio devices.
                  tag                     Register the NFC tags that stop alarms.
                  apps                    App time windows and daily limits: set them up, follow them, ask for more.
                  run                     Start an app of the policy if it may run now (asks the daemon first).
                  web                     Pair browsers with the clock's page (reveille-web).
                  calendar                Holiday and reminder calendars (.ics files): days off, events that chime.
                  reminder, reminders     Reminders: a chime with a line of text, at a time, without a calendar.
                  doctor                  Check the setup: settings, daemon, reader, sound, buttons, voice, time,
                                          files.
                """))
    }

    @Test func tagAddHelp() {
        #expect(
            TagCommand.Add.helpMessage(columns: 80) == """
                OVERVIEW: Register a tag: place it on the reader (or give its UID).

                Waits for a tap, then stores the tag's UID under the label. Refused: a label or
                UID already registered, and random UIDs (phones and some cards show a new one
                at every tap).

                USAGE: add --label <label> [--uid <hex>] [--timeout <seconds>] [--root <dir>]

                OPTIONS:
                  --label <label>         A name for the tag, like bathroom.
                  --uid <hex>             The tag's UID in hex, instead of a tap.
                  --timeout <seconds>     Seconds to wait for the tap, 1-300. (default: 30)
                  --root <dir>            The daemon's root folder (default: $REVEILLE_ROOT,
                                          else /).
                  -h, --help              Show help information.

                """)
    }

    @Test func soundTestHelp() {
        #expect(
            SoundCommand.Test.helpMessage(columns: 80) == """
                OVERVIEW: Play a sound through the daemon, as an alarm would.

                Plays FILE (default: the configured sound, else the built-in tone) on the
                configured devices in order, then 'default', and says which one took it. An
                unreadable file plays the built-in tone instead, and says why. Refused while an
                alarm rings.

                USAGE: test [<file>] [--device <device>] [--seconds <seconds>] [--volume <volume>] [--root <dir>] [--json]

                ARGUMENTS:
                  <file>                  A WAV, FLAC, Ogg or MP3 file.

                OPTIONS:
                  --device <device>       Only this ALSA device, like plughw:CARD=Device.
                  --seconds <seconds>     How long to play, 1-300. (default: 5)
                  --volume <volume>       0-100 (default: the configured alarm volume).
                  --root <dir>            The daemon's root folder (default: $REVEILLE_ROOT,
                                          else /).
                  --json                  Print the daemon's answer as JSON, for scripts.
                  -h, --help              Show help information.

                """)
    }

    @Test func statusHelpOffersWatch() {
        #expect(
            StatusCommand.helpMessage(columns: 80) == """
                OVERVIEW: Show the daemon's state and the next ring.

                USAGE: status [--watch] [--root <dir>] [--json]

                OPTIONS:
                  --watch                 Then print each change as it happens (rang, snoozed,
                                          dismissed, next ring, reader, buttons), until Ctrl-C.
                  --root <dir>            The daemon's root folder (default: $REVEILLE_ROOT,
                                          else /).
                  --json                  Print the daemon's answer as JSON, for scripts.
                  -h, --help              Show help information.

                """)
    }

    @Test func reveilledHelpIsTrueToItsOptions() throws {
        let outcome = try runProcess(Binaries.daemon, ["--help"])
        #expect(outcome.status == 0)
        for option in [
            "--root <dir>", "--time-zone <zone>", "--admin-group", "--socket-group", "--log-level <level>",
            "/etc/reveille/reveille.toml",
        ] {
            #expect(outcome.stdout.contains(option))
        }
        #expect(!outcome.stdout.contains("clock-offset-file"))
    }
}

/// `reveille doctor` on the smart home's bridge, from its health file.
@Suite struct DoctorBridgeTests {
    @Test func doctorSaysWhenNoUserCanBeTheKiosk() {
        var web = Settings.Web()
        #expect(Doctor.kiosk(web, isSystem: false, userExists: { _ in false }) == nil, "under --root: no check")
        let missing = Doctor.kiosk(web, isSystem: true, userExists: { _ in false })
        #expect(missing?.level == .warning && missing?.detail.contains("no user reveille-kiosk") == true)
        #expect(missing?.fix?.contains("kiosk_user") == true)
        #expect(Doctor.kiosk(web, isSystem: true, userExists: { $0 == "reveille-kiosk" })?.level == .ok)
        web.kioskUser = "pi"
        #expect(Doctor.kiosk(web, isSystem: true, userExists: { $0 == "reveille-kiosk" })?.level == .warning)
        #expect(Doctor.kiosk(web, isSystem: true, userExists: { $0 == "pi" })?.detail == "the kiosk is pi's browser on this machine")
    }
    @Test func doctorSaysThisMachinesHouseholdCodeAndWhatIsNotPinned() {
        var mqtt = Settings.MQTT(host: "broker.home.arpa")
        #expect(Doctor.household(mqtt, nil) == nil)
        mqtt.household = "smiths"
        var health = BridgeHealth(
            broker: "b:1883", connected: true, since: 1, lastConnected: 1, problem: nil, daemonUp: true)
        health.householdCode = "7KQ2-M9XC-40TF-HZ3D"
        let member = Doctor.household(mqtt, health)
        #expect(member?.level == .warning && member?.detail.contains("7KQ2-M9XC-40TF-HZ3D") == true)
        #expect(member?.detail.contains("no hub key is pinned") == true && member?.fix?.contains("hub_key") == true)
        mqtt.hubKey = "0000-1111-2222-3333"
        #expect(Doctor.household(mqtt, health)?.level == .ok)
        mqtt.hubKey = nil
        mqtt.hub = true
        #expect(Doctor.household(mqtt, health)?.detail.contains("lists no other machine") == true)
        mqtt.machines = ["laptop": "0000-1111-2222-3333"]
        #expect(Doctor.household(mqtt, health)?.detail.hasSuffix("the hub, listing laptop") == true)
        #expect(Doctor.household(mqtt, nil)?.detail.contains("has not made") == true)
    }

    @Test func doctorSaysWhetherTheBridgeIsConnectedAndWhenItLastWas() {
        let mqtt = Settings.MQTT(host: "broker.home.arpa")
        #expect(Doctor.bridge(nil, nil, now: 1000) == nil)
        let never = Doctor.bridge(mqtt, nil, now: 1000)
        #expect(never?.level == .warning && never?.fix?.contains("systemctl enable --now reveille-mqtt") == true)
        let up = BridgeHealth(
            broker: "broker.home.arpa:1883", connected: true, since: 700, lastConnected: 700, problem: nil,
            daemonUp: true)
        #expect(
            Doctor.bridge(mqtt, up, now: 1000)
                == Finding(
                    level: .ok, subject: "smart home",
                    detail: "reveille-mqtt is connected to broker.home.arpa:1883 (since 5 min ago)"))
        let down = BridgeHealth(
            broker: "broker.home.arpa:1883", connected: false, since: 900, lastConnected: 700,
            problem: "cannot reach the broker at broker.home.arpa:1883: Connection refused", daemonUp: true)
        let finding = Doctor.bridge(mqtt, down, now: 1000)
        #expect(finding?.level == .warning)
        #expect(
            finding?.detail.contains("Connection refused") == true
                && finding?.detail.contains("last connected 5 min ago") == true)
        // Killed (kill -9, out of memory): the file still says connected, but its writer is gone.
        var killed = up
        killed.pid = 4242
        let gone = Doctor.bridge(mqtt, killed, now: 1000, runs: { _ in false })
        #expect(gone?.level == .warning)
        #expect(
            gone?.detail
                == "reveille-mqtt is not running: it stopped without a word while connected to broker.home.arpa:1883 (connected 5 min ago)"
        )
        #expect(Doctor.bridge(mqtt, killed, now: 1000, runs: { _ in true })?.level == .ok)
        // Stopped as asked (SIGTERM), 100 s ago, connected until then: said as such, not as a death.
        var stopped = killed
        (stopped.connected, stopped.since, stopped.lastConnected, stopped.stopped) = (false, 900, 900, true)
        stopped.problem = "reveille-mqtt stopped"
        let asked = Doctor.bridge(mqtt, stopped, now: 1000, runs: { _ in false })
        #expect(asked?.detail == "reveille-mqtt was stopped 100 s ago, last connected to broker.home.arpa:1883 100 s ago")
        #expect(asked?.fix == "sudo systemctl start reveille-mqtt, if the clock should be in the smart home")
        // This process is not the bridge; a pid that runs nothing is not either.
        #expect(!BridgeHealth.bridgeRuns(Int(getpid())))
        #expect(!BridgeHealth.bridgeRuns(0))
    }
}
