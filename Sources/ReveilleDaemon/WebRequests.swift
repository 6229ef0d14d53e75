import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore

/// Browsers paired with `reveille web pair` (docs/guide/screen.md, "The screen"). An admin asks for a one-time
/// code; `reveille-web` trades it for a long random token, which the browser keeps as an HttpOnly
/// cookie and `reveille-web` sends with each request it relays. Only the token's SHA-256 is stored,
/// in the root-only state database; a request carrying a token is served with that device's rights.
struct WebPairing {
    /// How long a pairing code is good for.
    static let codeLifetime = 600
    /// After this many wrong codes every open code is voided: eight digits cannot be guessed. High
    /// enough that guesses (reveille-web holds off each address after 5) cannot void an admin's
    /// code on purpose: 200 tries at 10^8 codes is a 1 in 500,000 chance.
    static let wrongCodeLimit = 200

    struct Pending {
        let role: Role
        let name: String
        let person: String?
        let expiresAt: Int
    }

    var pending: [String: Pending] = [:]
    var wrongCodes = 0
    /// Token hash → the device's rights, read from the store at the first use.
    var devices: [String: WebDeviceRights]?
}

/// What a paired browser's requests are served with: its rights, and the child it speaks for.
struct WebDeviceRights: Equatable {
    let role: Role
    /// The login name of the child the browser is paired for (`web pair --for`); nil for the
    /// household's browsers.
    let person: String?
}

/// `reveille web pair|devices|unpair`, and the codes `reveille-web` redeems.
final class WebRequests: RequestHandler {
    private let store: Store
    private let clock: any Clocks
    private let logger: Logger
    private var webPairing = WebPairing()
    /// The port `reveille-web` last said it serves on.
    private(set) var servingPort: Int?

    init(store: Store, clock: any Clocks, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        .answer(try respond(to: request.command))
    }

    /// A one-time code that pairs one browser as `name` with `role`, good for ten minutes; the
    /// reply names the port the page is served on.
    /// `lifetime`: ten minutes, or as long as the set-up network that says it is open.
    func pairingCode(
        role: Role, name: String, person: String? = nil, now: Int, lifetime: Int = WebPairing.codeLifetime
    ) -> Response {
        var digits = SystemRandomNumberGenerator()
        let number = UInt32.random(in: 0..<100_000_000, using: &digits)
        let code =
            NumberText.padded(Int(number / 10_000), width: 4) + "-"
            + NumberText.padded(Int(number % 10_000), width: 4)
        webPairing.pending[code] = WebPairing.Pending(
            role: role, name: name, person: person, expiresAt: now + lifetime)
        let rights = person.map { "\(role) rights, as \($0)" } ?? "\(role) rights"
        logger.notice("web pairing code made for \"\(name)\" (\(rights)), good for \(lifetime / 60) minutes")
        var response = Response(message: "pairing code for \"\(name)\" (\(rights)): \(code)")
        response.web = WebReply(code: code, expiresAt: now + lifetime)
        response.web?.port = servingPort
        return response
    }

    private func respond(to operation: Command) throws -> Response {
        let now = Int(clock.now().timeIntervalSince1970)
        webPairing.pending = webPairing.pending.filter { $0.value.expiresAt > now }
        switch operation {
        case .webPair(let role, let name, let person):
            guard role == .user || role == .admin else {
                throw InputError("role \(role): a browser is paired as 'user' (see, snooze, answer) or 'admin'")
            }
            if let person {
                guard role == .user else {
                    throw InputError("--for \(person): a child's phone is paired with user rights, not as an admin")
                }
                guard !person.isEmpty, person.utf8.count <= 32, person != AppLimits.everyone, getpwnam(person) != nil
                else {
                    throw InputError("--for \(person): no such user on this machine; give the child's login name")
                }
            }
            let name = name.trimmed(newlines: false)
            guard !name.isEmpty, name.count <= 40, !name.contains(where: { $0.isNewline || $0.asciiValue == 0x7F })
            else {
                throw InputError("--name \"\(name)\": give the device a short name, like \"kitchen phone\"")
            }
            return pairingCode(role: role, name: name, person: person, now: now)
        case .webServing(let port):
            if servingPort != port { logger.info("web: reveille-web serves the page on port \(port)") }
            servingPort = port
            return Response()
        case .webRedeem(let typed):
            let digits = typed.filter(\.isASCII).filter(\.isNumber)
            let code = digits.count == 8 ? "\(digits.prefix(4))-\(digits.suffix(4))" : typed
            guard let pending = webPairing.pending.removeValue(forKey: code) else {
                webPairing.wrongCodes += 1
                if webPairing.wrongCodes >= WebPairing.wrongCodeLimit, !webPairing.pending.isEmpty {
                    logger.warning("\(webPairing.wrongCodes) wrong pairing codes: every open code is voided")
                    webPairing.pending = [:]
                    webPairing.wrongCodes = 0
                }
                throw Refusal(
                    .notFound,
                    "that pairing code is unknown or has expired (a code lasts ten minutes and works once); "
                        + "ask an admin for a new one: sudo reveille web pair")
            }
            webPairing.wrongCodes = 0
            var bytes = SystemRandomNumberGenerator()
            let token = NumberText.hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &bytes) })
            let device = try store.insert(
                PairedDevice(
                    name: pending.name, role: pending.role.rawValue, tokenHash: Self.hash(token), pairedAt: now,
                    person: pending.person))
            webPairing.devices = nil
            let rights = pending.person.map { "\(pending.role), as \($0)" } ?? "\(pending.role)"
            logger.notice("web device #\(device.id ?? 0) \"\(pending.name)\" paired (\(rights))")
            var response = Response(message: "paired \"\(pending.name)\" with \(pending.role) rights")
            response.web = WebReply(token: token, devices: [Self.info(device)])
            return response
        case .webDevices:
            var response = Response()
            response.web = WebReply(devices: try store.pairedDevices().map(Self.info))
            return response
        case .webUnpair(let id):
            guard try store.deletePairedDevice(id: id) else {
                throw Refusal(.notFound, "no paired device #\(id); 'reveille web devices' shows the ids")
            }
            webPairing.devices = nil
            logger.notice("web device #\(id) unpaired")
            return Response(message: "unpaired device #\(id); its browser is refused from now on")
        default: throw misrouted(operation)
        }
    }

    /// The name a paired device was given (`web pair --name`), for who answered what; read from
    /// the state, which is rare enough (an answer to a request) not to be kept in memory.
    func deviceName(token: String) -> String? {
        let hash = Self.hash(token)
        return (try? store.pairedDevices())?.first { $0.tokenHash == hash }?.name
    }

    /// The rights of the device whose token this is; nil when no paired device has it. A stored
    /// role this version does not know (written by a newer one) gives no rights: refused, never
    /// guessed.
    func rights(token: String) -> WebDeviceRights? {
        if webPairing.devices == nil {
            do {
                webPairing.devices = Dictionary(
                    try store.pairedDevices().map { device in
                        // A child's phone never has more than user rights, whatever the row says.
                        let role = Role(rawValue: device.role) ?? .none
                        return (
                            device.tokenHash,
                            WebDeviceRights(role: device.person == nil ? role : min(role, .user), person: device.person)
                        )
                    },
                    uniquingKeysWith: { first, _ in first })
            } catch {
                logger.error("cannot read the paired web devices: \(error)")
                return nil
            }
        }
        return webPairing.devices?[Self.hash(token)]
    }

    private static func info(_ device: PairedDevice) -> WebDevice {
        WebDevice(
            id: Int(device.id ?? 0), name: device.name, role: Role(rawValue: device.role) ?? .none,
            pairedAt: device.pairedAt, person: device.person)
    }

    /// SHA-256 of the token, as hex.
    static func hash(_ token: String) -> String { ExecutableFile.sha256(Array(token.utf8)) }
}
