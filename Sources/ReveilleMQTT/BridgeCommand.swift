import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ReveilleConfig
import ReveilleProtocol
import ReveilleSystem

/// `reveille-mqtt`: the clock in the household's smart home, through its MQTT broker.
public struct BridgeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reveille-mqtt",
        abstract: "Shows the clock in Home Assistant through an MQTT broker, and takes snooze and switches from it.",
        discussion: """
            An unprivileged process that talks to reveilled only over its control socket, and to the \
            broker that [mqtt] in reveille.toml names, through libmosquitto. It announces the clock \
            with Home Assistant's MQTT discovery: the next ring, ringing, the ring state, the alarms' \
            switches, snooze, events, and each limited user's time left. Nothing over MQTT dismisses \
            a ring, and the daemon refuses a switch that would weaken a committed one. With \
            household = "NAME", the household's machines count a limited user's time together, and \
            follow the app policy and today's grants of the one with hub = true. The household's \
            messages are signed with each machine's Ed25519 key: the hub takes the counts of the \
            machines its [mqtt] machines lists by their keys' codes, and a member takes what the hub \
            signed when its hub_key is the hub's code (--household-key prints a machine's). Without an \
            [mqtt] table it says so and exits (status 0): the unit stays off until configured.
            """)

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Print this machine's household code (making its key if there is none yet), and exit.",
            discussion: "Run it as the bridge's user: sudo -u reveille-mqtt reveille-mqtt --household-key"))
    var householdKey = false

    @Option(name: .long, help: ArgumentHelp("Keep everything under this folder (development).", valueName: "dir"))
    var root: String?

    public init() {}

    public func run() throws {
        let paths = Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
        let settings: Settings
        do {
            settings = try Settings.load(path: paths.settingsFile)
        } catch {
            Stdio.err(Data("reveille-mqtt: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if householdKey {
            try printHouseholdKey(paths)
            return
        }
        guard let mqtt = settings.mqtt else {
            Stdio.err(
                Data(
                    "reveille-mqtt: \(paths.settingsFile) has no [mqtt] table: nothing to do. Add one with the broker's host (see reveille.toml's comments).\n"
                        .utf8))
            return
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "reveille-mqtt")
        logger.logLevel = .info
        signal(SIGPIPE, SIG_IGN)
        let password: String?
        do {
            password = try mqtt.passwordFile.map(Self.readPassword)
        } catch {
            Stdio.err(Data("reveille-mqtt: \(error)\n".utf8))
            throw ExitCode(78)
        }
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : "localhost"
        do {
            let loop = try BridgeLoop(
                settings: mqtt, paths: paths, host: host, password: password,
                pageURL: settings.web.pageURL(machineName: host), logger: logger)
            let status = loop.run()
            if status != 0 { throw ExitCode(status) }
        } catch let error as BridgeError {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
    }

    /// `--household-key`: the key's code, and what to do with it.
    func printHouseholdKey(_ paths: Paths) throws {
        let path = paths.bridgeState + "/household.key"
        do {
            let (key, made) = try HouseholdKey.loadOrMake(path)
            if made, geteuid() == 0 {
                // Made by root for the bridge's user: the file is the folder's owner's.
                var folder = stat()
                if stat(paths.bridgeState, &folder) == 0 { _ = chown(path, folder.st_uid, folder.st_gid) }
            }
            Stdio.out(
                Data(
                    """
                    \(key.code)
                    This machine's household code. On the hub, list this machine in [mqtt]: \
                    machines = ["NAME=\(key.code)"] (NAME: its MQTT user name). On a member, when this \
                    machine is the hub, set hub_key = "\(key.code)".

                    """.utf8))
        } catch {
            Stdio.err(Data("reveille-mqtt: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The first line of the password file, which must be a regular file no one else may read.
    static func readPassword(_ path: String) throws(BridgeError) -> String {
        let file: Descriptor
        do {
            file = try RegularFile.open(path)
        } catch {
            throw BridgeError("[mqtt] password_file: cannot read \(path): \(error)")
        }
        let mode: mode_t
        do {
            mode = try RegularFile.status(of: file.raw, path).st_mode
        } catch {
            throw BridgeError("[mqtt] password_file: \(error)")
        }
        guard mode & 0o077 == 0 else {
            throw BridgeError(
                "[mqtt] password_file: \(path) may be read by others (mode \(String(mode & 0o777, radix: 8))); "
                    + "make it the bridge's alone: chmod 600 \(path)")
        }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { read(file.raw, $0.baseAddress, $0.count) }
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        let line =
            text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !line.isEmpty else {
            throw BridgeError("[mqtt] password_file: \(path) is empty; put the password on its first line")
        }
        return line
    }
}

/// The program's entry point, for `reveille-mqtt`'s main.swift.
public enum BridgeMain {
    public static func start() -> Never {
        BridgeCommand.main()
        exit(0)
    }
}
