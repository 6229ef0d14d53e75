import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleProtocol
import ReveilleCore

struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "Register the NFC tags that stop alarms.",
        discussion: """
            An alarm with '--challenge nfc' (or 'any') stops when a registered tag is placed on the \
            reader: the tags it names with --tag, or any registered tag.
            """,
        subcommands: [Add.self, List.self, Remove.self, Test.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a tag: place it on the reader (or give its UID).",
            discussion: """
                Waits for a tap, then stores the tag's UID under the label. Refused: a label or UID \
                already registered, and random UIDs (phones and some cards show a new one at every tap).
                """)

        @Option(name: .long, help: ArgumentHelp("A name for the tag, like bathroom.", valueName: "label"))
        var label: String

        @Option(name: .long, help: ArgumentHelp("The tag's UID in hex, instead of a tap.", valueName: "hex"))
        var uid: String?

        @Option(name: .long, help: ArgumentHelp("Seconds to wait for the tap, 1-300.", valueName: "seconds"))
        var timeout = 30

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            if uid == nil {
                try requireReader(connection)
                print("Place the tag on the reader (waiting up to \(timeout) s)...")
                fflush(nil)
            }
            report(try send(.tagAdd(label: label, uid: uid, timeoutSeconds: timeout), to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the registered tags.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let tags = try send(.tagList, to: connection).tags ?? []
            if output.json { return printJSON(tags) }
            guard !tags.isEmpty else {
                return print("no tags; register one with 'reveille tag add --label bathroom'")
            }
            var table = Table("LABEL", "UID", "ADDED")
            for tag in tags {
                let added = Date(timeIntervalSince1970: TimeInterval(tag.addedAt))
                table.add(tag.label, tag.uid, added.formatted(.iso8601.year().month().day()))
            }
            table.print()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Forget a tag (alarms that named it take the others).")

        @Argument(help: ArgumentHelp("The tag's label.", valueName: "label"))
        var label: String

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.tagRemove(label: label), to: connection))
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test", abstract: "Place a tag on the reader: shows its UID and whether it is registered.")

        @Option(name: .long, help: ArgumentHelp("Seconds to wait for the tap, 1-300.", valueName: "seconds"))
        var timeout = 30

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try requireReader(connection)
            if !output.json {
                print("Place a tag on the reader (waiting up to \(timeout) s)...")
                fflush(nil)
            }
            guard let scan = try send(.tagTest(timeoutSeconds: timeout), to: connection).scan else { return }
            if output.json { return printJSON(scan) }
            if let label = scan.label {
                print("UID \(scan.uid): registered as \"\(label)\"")
            } else if scan.random {
                print("UID \(scan.uid): a random UID (new at every tap); it cannot be registered")
            } else {
                print("UID \(scan.uid): not registered; add it with 'reveille tag add --label NAME --uid \(scan.uid)'")
            }
        }
    }
}

/// Before asking anyone to tap a tag: a reader must be configured and working, or the command
/// ends at once with why (rather than after its wait).
func requireReader(_ connection: ConnectionOptions) throws {
    guard let refusal = try send(.status, to: connection).status?.reader.health.tapRefusal else { return }
    printError(refusal)
    throw ExitCode(1)
}
