import ReveilleCore

/// What Raspberry Pi Imager's OS customisation wrote on the card's boot partition for this image
/// (cloud-init's NoCloud files `user-data` and `network-config`), as far as a clock uses it: the
/// Wi-Fi, the host name, the time zone, and a user with SSH keys. Read once, at the first boot,
/// by `reveille image-settings`; every value is checked here, and nothing of it reaches a shell.
public struct ImagerSettings: Equatable, Sendable {
    public struct WiFi: Equatable, Sendable {
        public var ssid: String
        /// 64 hex digits (what Imager writes: the PBKDF2 of the passphrase) or a passphrase of
        /// 8–63 printable characters; nil: an open network.
        public var password: String?
        public var hidden = false
        /// ISO 3166 alpha-2, upper case ("GB"): the radio's regulatory domain.
        public var country: String?

        public init(ssid: String, password: String?, hidden: Bool = false, country: String? = nil) {
            self.ssid = ssid
            self.password = password
            self.hidden = hidden
            self.country = country
        }

        /// The password is the PSK itself, not a passphrase.
        public var passwordIsKey: Bool {
            password.map { $0.utf8.count == 64 && $0.utf8.allSatisfy(\.isHexDigit) } ?? false
        }
    }

    public struct User: Equatable, Sendable {
        public var name: String
        /// A crypt(3) hash (`$y$…`, `$6$…`); nil: no password (keys only).
        public var passwordHash: String?
        public var authorizedKeys: [String] = []
    }

    public var hostname: String?
    public var timeZone: String?
    public var wifi: WiFi?
    public var user: User?
    /// `enable_ssh: true`: SSH is turned on.
    public var ssh = false
    /// What the files ask for that a clock does not do (a keyboard, packages, commands), by key.
    public var notApplied: [String] = []

    public init() {}

    /// The largest file read (`YAMLNode.maxBytes`): a caller reads no more than one byte past it.
    public static let maxFileBytes = YAMLNode.maxBytes

    /// The settings in `userData` and `networkConfig` (either may be missing). A value that is not
    /// what Imager writes is refused with the file, the key and why; nothing is half taken.
    public static func read(userData: String?, networkConfig: String?) throws(ImagerError) -> ImagerSettings {
        var settings = ImagerSettings()
        if let userData { try settings.take(userData: userData) }
        if let networkConfig { try settings.take(networkConfig: networkConfig) }
        return settings
    }

    static let userDataKeys: Set<String> = [
        "hostname", "manage_etc_hosts", "timezone", "users", "enable_ssh", "ssh_pwauth",
    ]

    private mutating func take(userData text: String) throws(ImagerError) {
        let root = try Self.mapping(text, file: "user-data")
        for (key, value) in root {
            switch key {
            case "hostname":
                let name = try Self.string(value, "user-data", key)
                guard Self.isHostLabel(name) else {
                    throw ImagerError(
                        "user-data", key, "\"\(name)\" is not a host name: letters, digits and -, at most 63")
                }
                hostname = name
            case "timezone":
                let zone = try Self.string(value, "user-data", key)
                guard Self.isZoneName(zone) else {
                    throw ImagerError("user-data", key, "\"\(zone)\" is not a time zone's name, like Europe/London")
                }
                timeZone = zone
            case "enable_ssh": ssh = (try? Self.bool(value, "user-data", key)) ?? false
            case "users": user = try Self.firstUser(value)
            case "manage_etc_hosts", "ssh_pwauth": break  // the host name's line is always kept; keys only
            default: notApplied.append(key)
            }
        }
        notApplied.sort()
    }

    private mutating func take(networkConfig text: String) throws(ImagerError) {
        var root = try Self.mapping(text, file: "network-config")
        if let inner = root["network"] {
            guard case .mapping(let mapping) = inner else {
                throw ImagerError("network-config", "network", "is not a table of settings")
            }
            root = Self.pairs(mapping)
        }
        guard let wifis = root["wifis"] else { return }
        guard case .mapping(let interfaces) = wifis, let first = interfaces.first?.value,
            case .mapping(let interface) = first
        else { throw ImagerError("network-config", "wifis", "names no interface with its settings") }
        let settings = Self.pairs(interface)
        guard case .mapping(let points)? = settings["access-points"], let point = points.first else {
            throw ImagerError("network-config", "access-points", "names no network")
        }
        let ssid = try Self.string(point.key, "network-config", "access-points")
        guard !ssid.isEmpty, ssid.utf8.count <= 32, !ssid.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw ImagerError(
                "network-config", "access-points", "a network's name is 1 to 32 bytes, with no control characters")
        }
        var wifi = WiFi(ssid: ssid, password: nil)
        if case .mapping(let fields) = point.value {
            let fields = Self.pairs(fields)
            if let password = fields["password"] {
                let text = try Self.string(password, "network-config", "password")
                let isKey = text.utf8.count == 64 && text.utf8.allSatisfy(\.isHexDigit)
                let isPassphrase =
                    (8...63).contains(text.utf8.count) && text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
                guard text.isEmpty || isKey || isPassphrase else {
                    throw ImagerError(
                        "network-config", "password", "is neither 64 hex digits nor a passphrase of 8 to 63 characters")
                }
                wifi.password = text.isEmpty ? nil : text
            }
            if let hidden = fields["hidden"] { wifi.hidden = try Self.bool(hidden, "network-config", "hidden") }
        }
        if let domain = settings["regulatory-domain"] {
            let code = try Self.string(domain, "network-config", "regulatory-domain").uppercased()
            guard code.utf8.count == 2, code.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
                throw ImagerError(
                    "network-config", "regulatory-domain", "\"\(code)\" is not a country's two letters, like GB")
            }
            wifi.country = code
        }
        self.wifi = wifi
    }

    private static func firstUser(_ node: YAMLNode) throws(ImagerError) -> User? {
        guard case .sequence(let entries) = node else { throw ImagerError("user-data", "users", "is not a list") }
        for entry in entries {
            guard case .mapping(let mapping) = entry else { continue }  // "default": the image's own
            let fields = pairs(mapping)
            guard let nameNode = fields["name"] else { continue }
            let name = try string(nameNode, "user-data", "name")
            guard isUserName(name) else {
                throw ImagerError(
                    "user-data", "name", "\"\(name)\" is not a user name: lower-case letters, digits, _ and -")
            }
            var user = User(name: name)
            if let hash = fields["passwd"] {
                let text = try string(hash, "user-data", "passwd")
                guard text.hasPrefix("$"), !text.contains(":"),
                    !text.unicodeScalars.contains(where: { $0.value < 0x21 })
                else { throw ImagerError("user-data", "passwd", "is not a password hash (crypt)") }
                user.passwordHash = text
            }
            if let keys = fields["ssh_authorized_keys"] {
                guard case .sequence(let list) = keys else {
                    throw ImagerError("user-data", "ssh_authorized_keys", "is not a list")
                }
                for key in list {
                    let text = try string(key, "user-data", "ssh_authorized_keys").trimmed()
                    guard ["ssh-", "ecdsa-", "sk-"].contains(where: text.hasPrefix), !text.contains("\n") else {
                        throw ImagerError("user-data", "ssh_authorized_keys", "an entry is not an SSH public key")
                    }
                    user.authorizedKeys.append(text)
                }
            }
            return user
        }
        return nil
    }

    // MARK: Reading YAML

    private static func mapping(_ text: String, file: String) throws(ImagerError) -> [String: YAMLNode] {
        let node: YAMLNode?
        do {
            node = try YAMLNode.load(text)
        } catch {
            throw ImagerError(file, nil, error.reason)
        }
        guard let node else { return [:] }
        guard case .mapping(let mapping) = node else { throw ImagerError(file, nil, "is not a table of settings") }
        return pairs(mapping)
    }

    private static func pairs(_ mapping: [YAMLPair]) -> [String: YAMLNode] {
        var out: [String: YAMLNode] = [:]
        for pair in mapping { if let name = pair.key.string { out[name] = pair.value } }
        return out
    }

    private static func string(_ node: YAMLNode, _ file: String, _ key: String) throws(ImagerError) -> String {
        guard let text = node.string else { throw ImagerError(file, key, "is not a text") }
        return text
    }

    private static func bool(_ node: YAMLNode, _ file: String, _ key: String) throws(ImagerError) -> Bool {
        guard let value = node.bool else { throw ImagerError(file, key, "is neither true nor false") }
        return value
    }

    // MARK: What a value may be

    static func isHostLabel(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...63).contains(bytes.count) && bytes.first != 0x2D && bytes.last != 0x2D
            && bytes.allSatisfy { $0.isASCIILetterOrDigit || $0 == 0x2D }
    }

    static func isZoneName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return name.utf8.count <= 64 && !parts.isEmpty
            && parts.allSatisfy { part in
                !part.isEmpty && part != "." && part != ".."
                    && part.utf8.allSatisfy { $0.isASCIILetterOrDigit || "_-+".utf8.contains($0) }
            }
    }

    static func isUserName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (1...32).contains(bytes.count) else { return false }
        return ((0x61...0x7A).contains(first) || first == 0x5F)
            && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
            && name != "root"
    }
}

/// A value in Imager's files that is not what Imager writes: the file, the key and why.
public struct ImagerError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let key: String?
    public let reason: String

    init(_ file: String, _ key: String?, _ reason: String) {
        self.file = file
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(file)\(key.map { " \($0)" } ?? ""): \(reason)" }
}

extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
    var isASCIILetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
