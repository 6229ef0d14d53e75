import CGcrypt
import FoundationEssentials
import Glibc
import ReveilleConfig
import ReveilleSystem

/// A machine's Ed25519 key for the household's messages: the hub signs its policy, grants and
/// list of machines with it, and each machine its own counts, so that what a member follows does
/// not rest on the broker's ACL. Made by the bridge on its first start in a household, kept in
/// its state folder (`household.key`, its user's alone); its **code** (16 letters and digits of
/// its public key's SHA-256) is what another machine's owner pins.
public struct HouseholdKey: Sendable, Equatable {
    public static let size = 32
    public let publicKey: [UInt8]
    let secret: [UInt8]

    /// libgcrypt started, once per process, before its first use.
    static let started: Bool = rv_gcrypt_start() == 0

    init(publicKey: [UInt8], secret: [UInt8]) {
        self.publicKey = publicKey
        self.secret = secret
    }

    /// A new key pair from libgcrypt's random numbers.
    public static func generate() throws(BridgeError) -> HouseholdKey {
        var publicKey = [UInt8](repeating: 0, count: size)
        var secret = [UInt8](repeating: 0, count: size)
        guard started, rv_ed25519_generate(&publicKey, &secret) == 0 else {
            throw BridgeError("libgcrypt could not make an Ed25519 key")
        }
        return HouseholdKey(publicKey: publicKey, secret: secret)
    }

    /// The signature (64 bytes) of `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        guard Self.started, rv_ed25519_sign(publicKey, secret, message, message.count, &signature) == 0 else {
            return []  // verifies nowhere: the message is dropped by every machine, and said so there
        }
        return signature
    }

    /// Whether `signature` is `publicKey`'s over `message`.
    public static func verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard started, publicKey.count == size, signature.count == 64 else { return false }
        return rv_ed25519_verify(publicKey, message, message.count, signature) == 0
    }

    /// This key's code: what another machine's owner pins (`hub_key`, `machines`).
    public var code: String { Self.code(of: publicKey) }

    /// Crockford's base32 (no I, L, O or U) of the first 80 bits of the public key's SHA-256, in
    /// four groups: `7KQ2-M9XC-40TF-HZ3D`. 80 bits: no one makes a key with a given code.
    public static func code(of publicKey: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        rv_sha256(publicKey, publicKey.count, &digest)
        var bits = 0
        var value = 0
        var out: [Character] = []
        for byte in digest.prefix(10) {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(HouseholdCode.alphabet[(value >> bits) & 31])
            }
            value &= (1 << bits) - 1
        }
        return HouseholdCode.grouped(out)
    }

    // MARK: The file

    /// The key kept at `path` (64 bytes: public, then secret), or nil when there is none yet.
    public static func load(_ path: String) throws(BridgeError) -> HouseholdKey? {
        guard access(path, F_OK) == 0 else { return nil }
        let file: Descriptor
        do {
            file = try RegularFile.open(path)
        } catch {
            throw BridgeError("the household key \(path) cannot be read: \(error)")
        }
        var bytes = [UInt8](repeating: 0, count: 2 * size + 1)
        let count = bytes.withUnsafeMutableBytes { read(file.raw, $0.baseAddress, $0.count) }
        guard count == 2 * size else {
            throw BridgeError(
                "the household key \(path) is damaged (\(max(0, count)) bytes, not \(2 * size)); remove it to make a new one, and give the new code to the household's other machines"
            )
        }
        return HouseholdKey(publicKey: Array(bytes[0..<size]), secret: Array(bytes[size..<2 * size]))
    }

    /// The key at `path`, made (and written, readable by this user only) when there is none.
    public static func loadOrMake(_ path: String) throws(BridgeError) -> (key: HouseholdKey, made: Bool) {
        if let key = try load(path) { return (key, false) }
        let key = try generate()
        do {
            try FileManager.default.createDirectory(
                atPath: String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]),
                withIntermediateDirectories: true)
        } catch {
            throw BridgeError("cannot make the folder of \(path): \(error)")
        }
        do {
            try RegularFile.replace(path, with: key.publicKey + key.secret, mode: 0o600, durable: true)
        } catch {
            throw BridgeError("cannot write the household key \(path): \(error)")
        }
        return (key, true)
    }
}
