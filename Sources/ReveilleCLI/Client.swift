import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleSystem
import ReveilleCore
import ReveilleProtocol

/// Sends one command to the daemon. A refusal or an unreachable daemon is printed as
/// `reveille: <message>` on standard error and ends the command with exit code 1; a value the
/// daemon finds out of range (an input mistake) with 64, as swift-argument-parser's usage errors.
func send(_ command: Command, to connection: ConnectionOptions) throws -> Response {
    let response: Response
    do {
        response = try ControlClient.opening(for: command, paths: connection.paths).send(command)
    } catch {
        printError(error.description)
        throw ExitCode(1)
    }
    if let error = response.error {
        // Within an alarm's commitment: in a terminal, its challenge is asked here, then the
        // change is sent again (once).
        if error.code == .challengeFirst, let alarmID = error.alarmID, isatty(STDIN_FILENO) == 1 {
            printError(error.message)
            guard try UnlockCommand.challenge(alarmID, connection: connection) else { throw ExitCode(1) }
            return try send(command, to: connection)
        }
        printError(error.message)
        throw ExitCode(error.code == .invalid ? 64 : 1)
    }
    return response
}

/// Prints a reply's message, then its warnings on standard error (`reveille: warning: ...`).
func report(_ response: Response) {
    print(response.message ?? "")
    fflush(nil)  // the message before the warnings, even when both go to one pipe
    for warning in response.warnings ?? [] { printError("warning: \(warning)") }
}

func printError(_ message: String) {
    Stdio.err(Data("reveille: \(message)\n".utf8))
}

/// Prints `value` as pretty, key-sorted JSON.
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(value) {
        print(String(decoding: data, as: UTF8.self))
    }
}

/// Turns a parse failure of ours into an argument-parser usage error (exit code 64, usage shown).
func parsed<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as InputError {
        throw ValidationError(error.message)
    }
}
