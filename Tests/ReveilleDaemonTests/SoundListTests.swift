import Foundation
import Testing

/// `reveille sound list`: the sound files an alarm may take (what the page's alarm sheet offers),
/// on the shared daemon (it reads folders, and changes nothing).
@Suite struct SoundListTests {
    @Test func onlyAudioFilesEveryoneMayReadAreListed() throws {
        let daemon = SharedDaemon.unchanged
        let folder = daemon.root.appendingPathComponent("usr/local/share/sounds/birds")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Every folder on the way open to others, as the daemon asks of a sound file.
        var path = folder
        while path.path.hasPrefix(daemon.root.path) {
            chmod(path.path, 0o755)
            path.deleteLastPathComponent()
        }
        for (name, mode) in [("dawn.flac", 0o644), ("private.wav", 0o600), ("notes.txt", 0o644)] {
            let file = folder.appendingPathComponent(name)
            try Data("not really audio".utf8).write(to: file)
            chmod(file.path, mode_t(mode))
        }
        let list = try daemon.cli("sound", "list")
        #expect(list.status == 0)
        #expect(list.stdout == folder.appendingPathComponent("dawn.flac").path + "\n")
        let json = try daemon.cli("sound", "list", "--json")
        #expect(json.stdout.contains("dawn.flac") && !json.stdout.contains("private.wav"))
    }
}
