import Logging
import ReveilleProtocol
import ReveilleSystem
import ReveilleWifi
import Synchronization

/// `wifi scan` and `wifi join` (hardware.md, "Wi-Fi"): the networks the clock hears, and joining
/// one, through the system's Wi-Fi service (wpa_supplicant, which keeps the password in its own
/// file). An admin's, or the clock's screen's during the first set-up (`WifiRules.refusal`). A
/// scan takes seconds and a join up to `WifiJoining.patience`: each runs on a thread of its own,
/// one at a time, and answers its parked request; the loop never waits for the radio.
final class WifiRequests: RequestHandler {
    private let paths: Paths
    private let notes: DaemonNotes
    private let offLoop: OffLoop?
    private let logger: Logger
    /// A scan or a join is under way (on its thread).
    private final class Busy: Sendable {
        private let flag = Mutex(false)
        /// True when it was free and is now taken.
        func claim() -> Bool {
            flag.withLock { busy in
                if busy { return false }
                busy = true
                return true
            }
        }
        func free() { flag.withLock { $0 = false } }
    }
    private let busy = Busy()

    init(paths: Paths, notes: DaemonNotes, offLoop: OffLoop?, logger: Logger) {
        self.paths = paths
        self.notes = notes
        self.offLoop = offLoop
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        if let why = WifiRules.refusal(role: request.role, setupPending: notes.setupPending) {
            throw Refusal(.forbidden, why)
        }
        // While the set-up network is up the radio is its access point: the list is the one heard
        // before it opened.
        if case .wifiScan = request.command, let setup = notes.setupNetwork {
            var response = Response()
            response.wifi = WifiReply(networks: setup.heard)
            return .answer(response)
        }
        let job: @Sendable () -> LoopEvent
        let connection = request.connection ?? -1
        switch request.command {
        case .wifiScan:
            job = { [paths, logger] in
                .reply(
                    connection: connection,
                    Self.answer { () throws(WifiFailure) in try Self.scan(paths: paths, logger: logger) })
            }
        case .wifiJoin(let network, let password):
            let credentials: WifiRules.Credentials
            do throws(WifiRules.Problem) {
                credentials = try WifiRules.credentials(network: network, password: password)
            } catch {
                throw Refusal(.invalid, error.description)
            }
            let setupName = notes.setupNetwork?.name
            job = { [paths, logger] in
                var joined: (network: String, address: String?)?
                let response = Self.answer { () throws(WifiFailure) in
                    let response = try Self.join(
                        network: network, credentials: credentials, setupNetwork: setupName, paths: paths,
                        logger: logger)
                    joined = (network, response.wifi?.address)
                    return response
                }
                return .wifiJoined(
                    connection: connection, response, network: joined?.network, address: joined?.address)
            }
        default: throw misrouted(request.command)
        }
        guard busy.claim() else {
            throw Refusal(.busy, "the clock is already listening for networks or joining one; try again in a moment")
        }
        guard let offLoop, request.connection != nil else {
            defer { busy.free() }
            switch job() {
            case .reply(_, let response), .wifiJoined(_, let response, _, _): return .answer(response)
            default: return .answer(.failure(.internal, "no answer"))
            }
        }
        let busy = self.busy
        offLoop.run("wifi") {
            let event = job()
            busy.free()
            return event
        }
        return .parked
    }

    /// Opens the set-up network on the `wifi` thread (`SetupNetworkKeeper`): what the radio hears
    /// first, then the access point. nil: busy (another scan or join); tried again later.
    func openSetupNetwork(name: String, passphrase: [UInt8]) -> Bool {
        guard let offLoop, busy.claim() else { return false }
        let (busy, paths, logger) = (self.busy, self.paths, self.logger)
        offLoop.run("wifi") {
            let outcome: Result<[HeardNetwork], WifiFailure>
            do throws(WifiFailure) {
                outcome = .success(
                    try Self.openSetupNetwork(name: name, passphrase: passphrase, paths: paths, logger: logger))
            } catch {
                outcome = .failure(error)
            }
            busy.free()
            return .setupNetworkOpened(name: name, outcome)
        }
        return true
    }

    /// The radio's networks heard, then the access point `name` (WPA2, the code as its
    /// passphrase, never saved), once wpa_supplicant says it is up (10 s at most).
    static func openSetupNetwork(
        name: String, passphrase: [UInt8], paths: Paths, logger: Logger
    ) throws(WifiFailure) -> [HeardNetwork] {
        let heard = (try? scan(paths: paths, logger: logger))?.wifi?.networks ?? []
        let link = try SupplicantLink.open(paths: paths)
        _ = try link.ask(.attach)
        let bytes = Array(name.utf8)
        for old in SupplicantReading.ids(listNetworks: try link.ask(.listNetworks), named: bytes) {
            _ = try? link.ask(.remove(id: old))
        }
        let added = try link.ask(.addNetwork)
        guard let id = added.split(separator: "\n").first.flatMap({ Int($0) }),
            let key = WifiKey.derive(passphrase: passphrase, name: bytes)
        else {
            throw WifiFailure(code: .internal, description: "the set-up network could not be made")
        }
        for command: SupplicantCommand in [
            .setName(id: id, name: bytes), .setAccessPoint(id: id),
            .setFrequency(id: id, megahertz: SetupNetwork.frequency), .setPasswordOnly(id: id), .setRSN(id: id),
            .setPairwiseCCMP(id: id), .setGroupCCMP(id: id), .setKey(id: id, key: key), .select(id: id),
        ] {
            _ = try link.ask(command)
        }
        let deadline = Monotonic.seconds() + 10
        while let event = link.nextEvent(until: deadline) {
            if event == .accessPointEnabled {
                logger.notice("wifi: the set-up network \(name) is open on \(link.interface)")
                return heard
            }
        }
        _ = try? link.ask(.remove(id: id))
        _ = try? link.ask(.enableAll)
        throw WifiFailure(code: .unavailable, description: "the set-up network did not open within 10 seconds")
    }

    private static func answer(_ work: () throws(WifiFailure) -> Response) -> Response {
        do throws(WifiFailure) {
            return try work()
        } catch {
            return .failure(error.code, error.description)
        }
    }

    /// A scan: asked, its results awaited (10 s at most; the last results otherwise).
    static func scan(paths: Paths, logger: Logger) throws(WifiFailure) -> Response {
        let link = try SupplicantLink.open(paths: paths)
        _ = try link.ask(.attach)
        _ = try link.ask(.scan)
        let deadline = Monotonic.seconds() + 10
        while let event = link.nextEvent(until: deadline), event != .scanResults, event != .scanFailed {}
        let current = SupplicantReading.joined(status: try link.ask(.status))
        let heard = SupplicantReading.networks(scanResults: try link.ask(.scanResults), current: current?.network)
        logger.info("wifi: \(heard.count) networks heard on \(link.interface)")
        var response = Response(message: heard.isEmpty ? "no Wi-Fi network heard; try again, or move the clock" : nil)
        response.wifi = WifiReply(networks: heard, joined: current?.network, address: current?.address)
        return response
    }

    /// A join: the network added and selected (the others set aside meanwhile), followed until
    /// `WifiJoining` decides. Joined: older entries of the same name go, every network is enabled
    /// again, and wpa_supplicant saves them; its address (not the one on the network before) is
    /// awaited for 15 seconds. Not joined:
    /// the new entry goes and the networks it knew come back, as they were.
    static func join(
        network: String, credentials: WifiRules.Credentials, setupNetwork: String? = nil, paths: Paths,
        logger: Logger
    ) throws(WifiFailure) -> Response {
        let link = try SupplicantLink.open(paths: paths)
        _ = try link.ask(.attach)
        let added = try link.ask(.addNetwork)
        guard let id = added.split(separator: "\n").first.flatMap({ Int($0) }) else {
            throw WifiFailure(code: .internal, description: "the Wi-Fi service gave no network id")
        }
        var restored = false
        // The address on the network it was on: the new one's is another (until 15 s say otherwise).
        var before: String?
        func restore() {
            guard !restored else { return }
            restored = true
            _ = try? link.ask(.remove(id: id))
            _ = try? link.ask(.enableAll)
            // The set-up network comes back while the clock is not on the household's.
            if let setupNetwork,
                let back = SupplicantReading.ids(
                    listNetworks: (try? link.ask(.listNetworks)) ?? "", named: Array(setupNetwork.utf8)
                ).first
            {
                _ = try? link.ask(.select(id: back))
            }
        }
        do throws(WifiFailure) {
            _ = try link.ask(.setName(id: id, name: credentials.name))
            switch credentials.key {
            case .none: _ = try link.ask(.setOpen(id: id))
            case .key(let key): _ = try link.ask(.setKey(id: id, key: key))
            case .passphrase(let phrase):
                guard let key = WifiKey.derive(passphrase: phrase, name: credentials.name) else {
                    throw WifiFailure(code: .internal, description: "the Wi-Fi key could not be made (libgcrypt)")
                }
                _ = try link.ask(.setKey(id: id, key: key))
            }
            _ = try link.ask(.setProbe(id: id))
            before = SupplicantReading.joined(status: try link.ask(.status))?.address
            logger.notice("wifi: joining “\(network)” on \(link.interface)")
            _ = try link.ask(.select(id: id))
        } catch {
            restore()
            throw error
        }
        var joining = WifiJoining(network: network, id: id, started: Monotonic.seconds())
        var outcome: WifiJoining.Outcome?
        while outcome == nil {
            guard let event = link.nextEvent(until: joining.deadline) else {
                outcome = joining.timedOut
                break
            }
            outcome = joining.heard(event)
        }
        let result = outcome ?? joining.timedOut
        let words = WifiJoining.words(result, network: network)
        guard result == .joined else {
            restore()
            logger.notice("wifi: \(words); the networks it knew are back")
            throw WifiFailure(code: result == .wrongPassword ? .refused : .unavailable, description: words)
        }
        // Kept: older entries of this name go, the others come back, all saved by wpa_supplicant.
        let list = (try? link.ask(.listNetworks)) ?? ""
        for old in SupplicantReading.ids(listNetworks: list, named: credentials.name) where old != id {
            _ = try? link.ask(.remove(id: old))
        }
        // The set-up network is never kept.
        for setup in setupNetwork.map({ SupplicantReading.ids(listNetworks: list, named: Array($0.utf8)) }) ?? [] {
            _ = try? link.ask(.remove(id: setup))
        }
        _ = try? link.ask(.enableAll)
        if (try? link.ask(.save)) == nil {
            logger.warning(
                "wifi: wpa_supplicant could not save its networks (update_config=1?); joined until it restarts")
        }
        var address: String?
        let waitUntil = Monotonic.seconds() + 15
        while Monotonic.seconds() < waitUntil {
            address = (try? link.ask(.status)).flatMap { SupplicantReading.joined(status: $0)?.address }
            if address != nil, address != before { break }
            _ = link.nextEvent(until: min(waitUntil, Monotonic.seconds() + 0.5))
        }
        logger.notice("wifi: \(words)\(address.map { " at \($0)" } ?? ", no address yet")")
        var response = Response(
            message: words + (address.map { " (address \($0))" } ?? "; waiting for an address from its router"))
        response.wifi = WifiReply(networks: [], joined: network, address: address)
        return response
    }
}
