import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleConfig
import ReveilleProtocol

struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web", abstract: "Pair browsers with the clock's page (reveille-web).",
        discussion: """
            The page at [web] address:port (http://127.0.0.1:8080/ by default) serves this machine's \
            screen with the household's rights. Any other browser, and a screen that should manage \
            alarms, is paired once with a code from 'web pair'; the browser keeps a token as a cookie.
            """,
        subcommands: [Pair.self, Devices.self, Unpair.self])

    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Make a one-time code (ten minutes) that pairs one browser.",
            discussion: """
                Open the page on the phone or screen and type the code. Without --admin the browser \
                may see, snooze and answer; with it, also change alarms, rules, overrides, tags and \
                grants. With --for, it is a child's phone: it may see, snooze and answer too, and its \
                app page is that child's own (their apps, the minutes left today, asking for more), \
                with nothing about anyone else.
                """)

        @Option(name: .long, help: ArgumentHelp("What to call the device, like \"kitchen phone\".", valueName: "name"))
        var name = "browser"

        @Flag(name: .long, help: "Let the browser manage alarms, layers, tags and grants.")
        var admin = false

        @Option(
            name: .customLong("for"),
            help: ArgumentHelp("A child's phone: their own apps and asks, as this login name.", valueName: "user"))
        var person: String?

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if admin, person != nil {
                throw ValidationError(
                    "--admin and --for: a child's phone is paired with user rights; leave out --admin")
            }
        }

        func run() throws {
            let response = try send(.webPair(role: admin ? .admin : .user, name: name, person: person), to: connection)
            guard let code = response.web?.code else { return report(response) }
            let web = (try? Settings.load(path: connection.paths.settingsFile))?.web ?? Settings.Web()
            let port = response.web?.port ?? web.port
            let page =
                web.pageURL(machineName: ProcessInfo.processInfo.hostName, port: port)
                ?? "http://\(web.address.contains(":") ? "[\(web.address)]" : web.address):\(port)/"
            let rights = admin ? "admin rights" : person.map { "user rights, as \($0)" } ?? "user rights"
            print("pairing code for \"\(name)\" (\(rights)): \(code)")
            print("open \(page) and type it; it works once, for ten minutes")
            if web.loopbackOnly {
                print(
                    "note: reveille-web listens on \(web.address) only; set [web] address in reveille.toml to reach it from a phone"
                )
            }
        }
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the paired browsers.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let devices = try send(.webDevices, to: connection).web?.devices ?? []
            if output.json { return printJSON(devices) }
            guard !devices.isEmpty else { return print("no paired browsers; pair one with 'reveille web pair'") }
            var table = Table("ID", "NAME", "RIGHTS", "PAIRED")
            for device in devices {
                let paired = Date(timeIntervalSince1970: TimeInterval(device.pairedAt))
                table.add(
                    "\(device.id)", device.name,
                    device.person.map { "\(device.role.rawValue), as \($0)" } ?? device.role.rawValue,
                    paired.formatted(.iso8601.year().month().day()))
            }
            table.print()
        }
    }

    struct Unpair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unpair", abstract: "Forget a paired browser: it is refused from its next request.")

        @Argument(help: ArgumentHelp("The device's id (see 'web devices').", valueName: "id"))
        var id: Int

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.webUnpair(id: id), to: connection))
        }
    }
}
