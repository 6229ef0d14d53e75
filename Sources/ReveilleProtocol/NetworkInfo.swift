/// The machine's network as systemd-networkd sees it (its operational state), in a person's
/// words: alarms, the screen and the app limits need none, but a phone, the calendars' fetches,
/// the smart home and the clock's time (timesyncd) do. Absent where networkd manages nothing.
public struct NetworkInfo: Codable, Sendable, Equatable {
    /// An address the home network routes: phones, calendars and the broker can be reached.
    public var online: Bool
    /// networkd's own word: `routable`, `degraded`, `no-carrier`…
    public var state: String
    /// What it means, for `status`, `doctor` and the face: "no network: the Wi-Fi or the cable is
    /// not connected".
    public var words: String

    public init(online: Bool, state: String, words: String) {
        self.online = online
        self.state = state
        self.words = words
    }

    /// From networkd's operational state (sd_network_get_operational_state); nil for a state
    /// that says nothing of a network this machine uses (`missing`, or one this build does not know).
    public static func from(operationalState state: String) -> NetworkInfo? {
        let offline = { (why: String) in NetworkInfo(online: false, state: state, words: "no network: " + why) }
        switch state {
        case "routable": return NetworkInfo(online: true, state: state, words: "connected")
        case "degraded":
            return offline("no address from the home network yet (its router has not answered)")
        case "carrier", "degraded-carrier", "enslaved": return offline("connected, with no address yet")
        case "no-carrier", "dormant": return offline("the Wi-Fi or the cable is not connected")
        case "off": return offline("no network adapter is up")
        default: return nil
        }
    }
}
