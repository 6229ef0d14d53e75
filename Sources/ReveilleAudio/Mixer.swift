import CALSA
import Glibc

/// A mixer control set to a level at ring start, so that a muted or turned-down system mixer
/// does not silence the alarm. Find the name with `amixer -c CARD scontrols` (often "PCM",
/// "Master", "Speaker" or "Headphone").
public struct MixerSetting: Sendable, Hashable {
    /// A mixer device, like "default" or "hw:1".
    public var card: String
    /// A simple control name, like "PCM".
    public var control: String
    /// 0-100, of the control's range.
    public var level: Int

    public init(card: String, control: String, level: Int) {
        self.card = card
        self.control = control
        self.level = level
    }

    /// snd_mixer_open, attach, load, then snd_mixer_selem_set_playback_volume_all and _switch_all
    /// (unmute) on the named control.
    func apply() throws {
        var mixer: OpaquePointer?
        var status = snd_mixer_open(&mixer, 0)
        guard status >= 0, let mixer else { throw AudioError.alsa("snd_mixer_open", card, status) }
        defer { snd_mixer_close(mixer) }
        status = snd_mixer_attach(mixer, card)
        guard status >= 0 else { throw AudioError.alsa("snd_mixer_attach", card, status) }
        status = snd_mixer_selem_register(mixer, nil, nil)
        guard status >= 0 else { throw AudioError.alsa("snd_mixer_selem_register", card, status) }
        status = snd_mixer_load(mixer)
        guard status >= 0 else { throw AudioError.alsa("snd_mixer_load", card, status) }
        var id: OpaquePointer?
        snd_mixer_selem_id_malloc(&id)
        defer { snd_mixer_selem_id_free(id) }
        snd_mixer_selem_id_set_index(id, 0)
        snd_mixer_selem_id_set_name(id, control)
        guard let element = snd_mixer_find_selem(mixer, id) else {
            throw AudioError(
                "snd_mixer_find_selem", target: "\(card) control \"\(control)\"", code: -ENOENT,
                message: "no such control; list them with: amixer -D \(card) scontrols")
        }
        var low = 0
        var high = 0
        snd_mixer_selem_get_playback_volume_range(element, &low, &high)
        let value = low + (high - low) * level / 100
        status = snd_mixer_selem_set_playback_volume_all(element, value)
        guard status >= 0 else { throw AudioError.alsa("snd_mixer_selem_set_playback_volume_all", card, status) }
        if snd_mixer_selem_has_playback_switch(element) != 0 {
            snd_mixer_selem_set_playback_switch_all(element, 1)
        }
    }
}
