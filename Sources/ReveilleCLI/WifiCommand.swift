import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleProtocol
import ReveilleSystem

struct WifiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wifi", abstract: "See the Wi-Fi networks the clock hears, and join one.",
        discussion: """
            Through the system's Wi-Fi service (wpa_supplicant for wlan0, as the card image sets \
            it up), which keeps the password in its own file; Reveille keeps none. An admin's; the \
            clock's screen does the same in its first set-up and under More → Network.
            """,
        subcommands: [Scan.self, Join.self])

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan", abstract: "List the networks the clock hears, strongest first.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let response = try send(.wifiScan, to: connection)
            let reply = response.wifi ?? WifiReply(networks: [])
            if output.json { return printJSON(reply) }
            guard !reply.networks.isEmpty else { return report(response) }
            var table = Table("NETWORK", "SIGNAL", "PASSWORD")
            for network in reply.networks {
                let bars = String(repeating: "▮", count: network.bars) + String(repeating: "▯", count: 4 - network.bars)
                let password = network.enterprise ? "enterprise (not from the clock)" : network.locked ? "yes" : "open"
                table.add((network.current ? "* " : "  ") + network.name, "\(bars) \(network.signal) dBm", password)
            }
            table.print()
            if let joined = reply.joined {
                print("* on “\(joined)”" + (reply.address.map { " at \($0)" } ?? ""))
            }
        }
    }

    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "join", abstract: "Join a Wi-Fi network; its password is asked, never given on the line.",
            discussion: """
                In a terminal the password is asked with no echo; otherwise it is the first line of \
                standard input (echo "$PASSWORD" | reveille wifi join NAME). --open joins a network \
                with no password. Waits until the clock is on it (30 seconds at most), then prints \
                its address; the networks it knew stay kept when a join fails.
                """)

        @Argument(help: ArgumentHelp("The network's name, as 'wifi scan' lists it.", valueName: "network"))
        var network: String

        @Flag(name: .long, help: "A network with no password.")
        var open = false

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let password: String?
            if open {
                password = nil
            } else {
                guard let typed = Self.readPassword(prompt: "Password for “\(network)”: "), !typed.isEmpty else {
                    throw ValidationError(
                        "no password given for “\(network)”: type it when asked (or pipe it in), or use --open for a network without one"
                    )
                }
                password = typed
            }
            report(try send(.wifiJoin(network: network, password: password), to: connection))
        }

        /// The password: asked with no echo in a terminal, else the first line of standard input.
        static func readPassword(prompt: String) -> String? {
            let terminal = isatty(STDIN_FILENO) == 1
            var saved = termios()
            if terminal {
                Stdio.err(Data(prompt.utf8))
                tcgetattr(STDIN_FILENO, &saved)
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
            }
            defer {
                if terminal {
                    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                    Stdio.err(Data("\n".utf8))
                }
            }
            guard var line = readLine(strippingNewline: true) else { return nil }
            if line.hasSuffix("\r") { line.removeLast() }
            return line
        }
    }
}
