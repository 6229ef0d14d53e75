import CReveilleShims
import Foundation
import ReveilleProtocol
import Testing

/// `reveille doctor` on this machine: no sound card, no NFC reader (an emulated one where
/// asked), fanotify available to root.
@Suite struct DoctorTests {
    /// The time and fanotify lines, which depend on the machine the tests run on.
    static var machineLines: String {
        let time =
            RV_clock_synchronized() == 1
            ? "ok    time: the kernel's clock is synchronized (adjtimex)\n"
            : "warn  time: the kernel's clock is not synchronized (adjtimex)\n"
                + "      fix: check network time: timedatectl timesync-status (a Pi has no clock of its own: hardware.md, Time)\n"
        let fanotify =
            getuid() == 0
            ? "ok    fanotify: permission events available\n"
            : "note  fanotify: cannot tell without CAP_SYS_ADMIN\n      fix: run 'sudo reveille doctor' to check\n"
        // The daemons here run in Europe/Berlin, with the system's tzdata.
        let version =
            (try? String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8))?
            .split(separator: "\n").first?.dropFirst("# version ".count) ?? "?"
        let zone = "ok    time zone: Europe/Berlin, rules from tzdata \(version)\n"
        return time + zone + fanotify
    }

    static var guardLine: String {
        isRoot
            ? "ok    app guard: fanotify: no app listed, no exec waits for the guard\n"
            : "note  app guard: gate only: 'reveille run NAME' asks first (fanotify unavailable: fanotify_init: needs root (CAP_SYS_ADMIN))\n      fix: run reveilled with CAP_SYS_ADMIN (the unit grants it) to block launches in the kernel\n"
    }

    /// No button under the test's root; the voice loads at its first sentence.
    static let inputLines = """
        note  buttons: none found
              fix: plug in a keypad or wire a button (hardware.md); the daemon picks it up when it appears
        ok    voice: espeak-ng, voice en (loaded at the first sentence)

        """

    /// Doctor's output without its line of descriptor counts (which vary), once it is checked.
    static func withoutCounts(_ output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let counts = lines.filter { $0.hasPrefix("ok    descriptors: ") }
        #expect(counts.count == 1 && counts[0].contains(" descriptors open, "), "\(output)")
        return lines.filter { !$0.hasPrefix("ok    descriptors: ") }.joined(separator: "\n")
    }

    static var modulesLine: String {
        FileManager.default.fileExists(atPath: "/proc/modules")
            ? "ok    kernel NFC modules: none loaded\n" : "ok    kernel NFC modules: none (no loadable modules here)\n"
    }

    @Test func aFreshSetupWithoutSoundCardOrReaderThenAReaderThatIsNotThere() throws {
        let daemon = try DaemonHarness(settings: "")
        try FileManager.default.removeItem(atPath: daemon.paths.settingsFile)
        let doctor = try daemon.cli("doctor")
        #expect(doctor.status == 1)
        #expect(
            Self.withoutCounts(doctor.stdout) == """
                ok    settings: no \(daemon.paths.settingsFile): the embedded defaults
                ok    daemon: reveilled 0.1.0 answers on \(daemon.paths.socket)
                note  NFC reader: none configured: alarms are dismissed by math
                      fix: to use tags, wire a reader and set [nfc] device (hardware.md)

                """ + Self.modulesLine + """
                    FAIL  sound cards: none (/proc/asound/cards)
                          fix: plug in a USB speaker, or enable the headphone jack or an I2S amplifier (hardware.md, Sound)
                    FAIL  test tone: no device could play it: cannot open default: No such file or directory (snd_pcm_open); list devices with: reveille sound devices
                          fix: set [audio] devices to a device from 'reveille sound devices' (hardware.md, Sound)

                    """ + Self.inputLines + Self.machineLines + Self.guardLine + """
                    ok    files: settings, state, socket and hooks have safe modes

                    """)

        // A reader named whose device is missing: doctor names the fix (the settings applied by a
        // start again in place).
        try "[nfc]\ndevice = \"pn532_i2c:/dev/i2c-9\"\n".write(
            toFile: daemon.paths.settingsFile, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(daemon.waitFor(5) { daemon.logText().contains("starting again in place") })
        #expect(daemon.waitFor(5) { daemon.answersStatus() })
        let reader = try daemon.cli("doctor", "--no-tone")
        #expect(
            reader.stdout.contains(
                "FAIL  NFC reader: pn532_i2c:/dev/i2c-9: no device at /dev/i2c-9\n      fix: enable I2C: sudo raspi-config nonint do_i2c 0 (hardware.md, PN532 by I2C)\n"
            ), "\(reader.stdout)")
    }

    @Test func aConfiguredReaderAndCaptureDeviceAndUnsafeFiles() throws {
        let daemon = try DaemonHarness(nfcReader: true)
        chmod(daemon.paths.settingsFile, 0o666)
        let hooks = daemon.paths.configDirectory + "/hooks.d"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(toFile: hooks + "/10-lights", atomically: true, encoding: .utf8)
        chmod(hooks + "/10-lights", 0o777)
        let doctor = try daemon.cli("doctor")
        #expect(doctor.status == 1)
        #expect(
            Self.withoutCounts(doctor.stdout) == """
                ok    settings: \(daemon.paths.settingsFile)
                ok    daemon: reveilled 0.1.0 answers on \(daemon.paths.socket)
                ok    NFC reader: reveilled says: ok (\(daemon.readerConnstring))

                """ + Self.modulesLine + """
                    ok    libnfc config: /etc/nfc/libnfc.conf names no device
                    note  sound cards: none (/proc/asound/cards)
                          fix: plug in a USB speaker, or enable the headphone jack or an I2S amplifier (hardware.md, Sound)
                    ok    test tone: 1 s of the built-in tone on \(daemon.captureDevice)

                    """ + Self.inputLines + Self.machineLines + Self.guardLine + """
                    FAIL  files: \(daemon.paths.settingsFile) can be changed by others (mode 666)
                          fix: sudo chmod 644 \(daemon.paths.settingsFile)
                    FAIL  files: hook \(hooks)/10-lights can be changed by others
                          fix: sudo chmod go-w \(hooks)/10-lights

                    """)
        #expect(daemon.waitFor(3) { daemon.capturedBytes() == 44 + 96_000 })
    }

    /// A root where no daemon ever ran: nothing to start.
    @Test func noDaemonIsAFailureWithHowToStartIt() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let doctor = try runProcess(Binaries.cli, ["doctor", "--no-tone"], environment: ["REVEILLE_ROOT": root.path])
        #expect(doctor.status == 1)
        #expect(
            doctor.stdout.contains(
                "FAIL  daemon: reveilled is not running (no answer at \(Paths(root: root.path).socket)); start it with 'make run' or 'sudo systemctl start reveille'\n      fix: start it: reveilled --root \(root.path)\n"
            ), "\(doctor.stdout)")
    }
}
