import CALSA
import Glibc
import ReveilleCore

/// The PCMs alsa-lib knows for playback, like `aplay -L`: snd_device_name_hint over every card,
/// skipping capture-only ones.
///
/// A device name is a small program for alsa-lib: `file:'|cmd'` runs `cmd` through `popen()`,
/// and the `pipe`, `exec` and `shm` plugins reach further. So a name that comes from a request is
/// never opened as given: it must be one of `permitted(configured:)`, the names the admin put in
/// reveille.toml and those alsa-lib enumerates whose plugin is a plain output (`hw`, `plughw`,
/// `default`, ...).
public enum DeviceList {
    /// Plugins that only reach a sound card (or discard): nothing in them runs or writes files.
    static let outputPlugins: Set<String> = [
        "default", "sysdefault", "hw", "plughw", "front", "rear", "center_lfe", "side", "surround21",
        "surround40", "surround41", "surround50", "surround51", "surround71", "iec958", "spdif", "hdmi",
        "dmix", "pulse", "pipewire", "jack", "null",
    ]

    /// Whether an enumerated name is a plain output: its plugin (what comes before `:`) is one of
    /// `outputPlugins` and nothing in it could start a program or name a file.
    static func isPlainOutput(_ name: String) -> Bool {
        let plugin = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let forbidden: Set<Character> = ["|", "'", "\"", "/", "$", "{", "}", "\n"]
        return outputPlugins.contains(plugin) && !name.contains(where: forbidden.contains)
    }

    /// What `sound test --device` may name: the configured devices (in their order), then the
    /// enumerated plain outputs. Nothing else reaches `snd_pcm_open` from a request.
    public static func permitted(configured: [String]) -> [AudioDevice] {
        var seen = Set<String>()
        var devices: [AudioDevice] = []
        for name in configured where seen.insert(name).inserted {
            devices.append(AudioDevice(name: name, description: "configured in reveille.toml"))
        }
        if seen.insert("default").inserted {
            devices.append(AudioDevice(name: "default", description: "ALSA's default device, tried last"))
        }
        for device in playbackDevices() where isPlainOutput(device.name) && seen.insert(device.name).inserted {
            devices.append(device)
        }
        return devices
    }

    public static func playbackDevices() -> [AudioDevice] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [AudioDevice] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            let direction = value(hint, "IOID")
            guard direction == nil || direction == "Output", let name = value(hint, "NAME") else { continue }
            let description = (value(hint, "DESC") ?? "").split(separator: "\n").joined(separator: ", ")
            devices.append(AudioDevice(name: name, description: description))
        }
        return devices
    }

    /// snd_device_name_get_hint, whose result the caller frees.
    private static func value(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
        guard let text = snd_device_name_get_hint(hint, key) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
