// An emulated PN532 on a pseudo-terminal, driven from standard input: for benchmarks and for
// trying the daemon without a reader. Usage: pn532-emulator LINK
//   present HEX   put a tag with that UID on the reader      remove   take it away
//   unplug        the reader disappears                      plug     it comes back
//   quit
// Each command is answered with "ok" (or "error: ...") on standard output.
import Foundation
import ReveilleTestSupport

/// Prints a line and flushes it at once: the driving script waits for each answer.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: pn532-emulator LINK\n".utf8))
    exit(2)
}
let emulator: PN532Emulator
do {
    emulator = try PN532Emulator(link: CommandLine.arguments[1])
} catch {
    FileHandle.standardError.write(Data("pn532-emulator: \(error)\n".utf8))
    exit(1)
}
say("ready \(emulator.link)")
while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    switch words.first {
    case "present":
        let hex = words.count > 1 ? words[1] : ""
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
            let byte = UInt8(hex[index..<next], radix: 16)
        {
            bytes.append(byte)
            index = next
        }
        guard !bytes.isEmpty else {
            say("error: present needs a UID in hex")
            continue
        }
        emulator.present(uid: bytes)
        say("ok")
    case "remove":
        emulator.removeTag()
        say("ok")
    case "unplug":
        emulator.unplug()
        say("ok")
    case "plug":
        do {
            try emulator.plugIn()
            say("ok")
        } catch {
            say("error: \(error)")
        }
    case "quit":
        emulator.unplug()
        exit(0)
    default:
        say("error: unknown command; use present HEX, remove, unplug, plug or quit")
    }
}
emulator.unplug()
