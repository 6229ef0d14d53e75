import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleSystem
import ReveilleCore

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the setup: settings, daemon, reader, sound, buttons, voice, time, files.",
        discussion: """
            Each finding is 'ok', 'note', 'warn' or 'FAIL', with the fix below it. Plays a \
            1-second test tone through the daemon unless --no-tone. Exits 1 when something fails. \
            --json prints the findings as a JSON array of {level, subject, detail, fix}.
            """)

    @Flag(name: .long, help: "Do not play the test tone.")
    var noTone = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let findings = Doctor(paths: connection.paths, playTone: !noTone).run()
        if output.json {
            printJSON(findings)
            if findings.contains(where: { $0.level == .failure }) { throw ExitCode(1) }
            return
        }
        var text = ""
        for finding in findings {
            let level = finding.level.rawValue.fitted(to: 6)
            text += "\(level)\(finding.subject): \(finding.detail)\n"
            if let fix = finding.fix { text += "      fix: \(fix)\n" }
        }
        Stdio.out(Data(text.utf8))
        if findings.contains(where: { $0.level == .failure }) { throw ExitCode(1) }
    }
}
