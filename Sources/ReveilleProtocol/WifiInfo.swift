/// A Wi-Fi network the clock hears (`wifi scan`): one line of the set-up screen's list.
public struct HeardNetwork: Codable, Sendable, Equatable {
    /// Its name as people read it (an SSID that is not UTF-8 is shown with replacement marks and
    /// cannot be joined by name).
    public var name: String
    /// The strongest of its access points, in dBm (-30 is close, -85 is far).
    public var signal: Int
    /// Its strength in bars, 1 to 4, for the screen.
    public var bars: Int
    /// Protected: joining needs its password.
    public var locked: Bool
    /// It needs more than a password (WPA Enterprise: a user name, a certificate): not joined from
    /// the clock.
    public var enterprise: Bool
    /// The clock is on it now.
    public var current: Bool

    public init(name: String, signal: Int, locked: Bool, enterprise: Bool = false, current: Bool = false) {
        self.name = name
        self.signal = signal
        self.bars = HeardNetwork.bars(signal)
        self.locked = locked
        self.enterprise = enterprise
        self.current = current
    }

    /// dBm to bars: -55 and better 4, -67 3, -75 2, weaker 1.
    public static func bars(_ signal: Int) -> Int {
        switch signal {
        case (-55)...: 4
        case (-67)...: 3
        case (-75)...: 2
        default: 1
        }
    }
}

/// `wifi scan` and `wifi join`: the networks heard, strongest first, and the one the clock is on.
public struct WifiReply: Codable, Sendable, Equatable {
    public var networks: [HeardNetwork]
    /// The network the clock is on, when it is on one.
    public var joined: String?
    /// Its IPv4 address on that network, once it has one.
    public var address: String?

    public init(networks: [HeardNetwork], joined: String? = nil, address: String? = nil) {
        self.networks = networks
        self.joined = joined
        self.address = address
    }
}
