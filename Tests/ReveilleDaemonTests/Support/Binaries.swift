import Foundation

/// Where `swift build` put `reveilled` and `reveille`: `$REVEILLE_BIN_DIR`, or beside the test bundle.
enum Binaries {
    static let directory: URL = {
        if let dir = ProcessInfo.processInfo.environment["REVEILLE_BIN_DIR"] {
            return URL(fileURLWithPath: dir)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("reveilled").path) {
                return url
            }
        }
        return URL(fileURLWithPath: ".build/debug")
    }()

    static var daemon: URL { directory.appendingPathComponent("reveilled") }
    static var cli: URL { directory.appendingPathComponent("reveille") }
    static var notifier: URL { directory.appendingPathComponent("reveille-notify") }
}

/// What a finished command printed and returned.
struct Outcome: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// Runs `executable` with `arguments` to the end, with `environment` added to ours.
/// `input`: standard input's whole text (none: /dev/null).
func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
) throws -> Outcome {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inputPipe = input.map { _ in Pipe() }
    process.standardInput = inputPipe ?? FileHandle.nullDevice
    try process.run()
    if let inputPipe, let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
    }
    // Read both pipes before waiting, so a chatty child never blocks on a full pipe.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Outcome(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

var isRoot: Bool { getuid() == 0 }
