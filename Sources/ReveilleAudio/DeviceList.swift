import CALSA
import Glibc
import ReveilleCore

/// The PCMs alsa-lib knows for playback, like `aplay -L`: snd_device_name_hint over every card,
/// skipping capture-only ones.
public enum DeviceList {
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
