/// The first boot's set-up (hardware.md, "The image"): a flashed clock asks on its screen where it
/// is, once, and shows how to pair a phone. The rule of who may set it and when is here; the
/// daemon's edge reads whether it is pending and whether the zone's file exists, and acts.
public enum FirstSetup {
    /// A zone's name as tzdata spells one: parts of letters, digits and `_+-`, joined by `/`, none
    /// starting with a dot. Only such a name reaches the system's time-date service.
    public static func isZoneName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64 else { return false }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            !part.isEmpty && part.first != "." && part.first != "-"
                && part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_+-".unicodeScalars.contains($0)) }
        }
    }

    /// Why setting `zone` is refused now, in words for the screen; nil: it is set.
    /// `pending`: the set-up is not done yet; `zoneExists`: the zone's tzdata file is on this clock.
    public static func refusal(pending: Bool, zone: String, zoneExists: Bool) -> String? {
        guard pending else {
            return "this clock is set up already; its time zone is changed by an admin: sudo timedatectl set-timezone ZONE"
        }
        guard isZoneName(zone), zoneExists else {
            return "time zone \"\(zone.prefix(64))\": not one this clock knows; choose it from the list (like Europe/Berlin)"
        }
        return nil
    }
}
