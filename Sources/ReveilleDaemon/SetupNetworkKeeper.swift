import Glibc
import Logging
import ReveilleConfig
import ReveilleProtocol
import ReveilleSystem
import ReveilleWifi

/// The set-up network of a clock with no screen (hardware.md, "Wi-Fi"): `setup_network_wait_seconds`
/// after the start, when `SetupNetwork.shouldOpen` says (no default route: no home network), a pairing code good for an hour is made
/// and the access point "Reveille-XXXX" opened with it (on the `wifi` thread, `WifiRequests`); the
/// voice says how to join it, and again at a bedside key. A phone on it pairs with the same code
/// and joins the household's network through `wifi join`: the set-up network closes and the voice
/// says the new address; a join that fails brings it back, and the voice says why.
final class SetupNetworkKeeper {
    private let paths: Paths
    private let setting: SetupNetwork.Setting
    private let notes: DaemonNotes
    private let web: WebRequests
    private let wifi: WifiRequests
    private let controller: Controller
    private let logger: Logger
    private let timer: LoopTimer
    private var code: String?
    /// Why it was not opened when last looked at, said once.
    private var lastWhy: String?

    init(
        paths: Paths, settings: Settings.Wifi, notes: DaemonNotes, web: WebRequests, wifi: WifiRequests,
        controller: Controller, loop: EventLoop, feed: WatchFeed, logger: Logger
    ) throws {
        self.paths = paths
        setting = SetupNetwork.Setting(rawValue: settings.setupNetwork) ?? .auto
        self.notes = notes
        self.web = web
        self.wifi = wifi
        self.controller = controller
        self.logger = logger
        timer = try LoopTimer(.monotonic, logger: logger)
        try loop.watch(timer.fd) { [unowned self] _ in
            _ = timer.acknowledge()
            consider()
        }
        feed.subscribe { [unowned self] event in
            if case .screenWake = event, notes.setupNetwork != nil { announce() }
        }
        if setting != .never, notes.setupPending { _ = timer.arm(after: Double(settings.setupNetworkWaitSeconds)) }
    }

    /// Opens the set-up network when it should be (and is not); while the first set-up is pending,
    /// looks again every half minute (an adapter plugged in late, a network that went).
    private func consider() {
        guard notes.setupNetwork == nil, notes.setupPending else { return }
        let adapter = SupplicantLink.wirelessInterface(in: paths.system("/sys/class/net"))
        // Online: a way out to a home network (a default route), not merely a link with an address.
        let routes = RegularFile.head(paths.system("/proc/net/route"), count: 64 * 1024).map {
            String(decoding: $0, as: UTF8.self)
        }
        let screen = Self.hasScreen(paths), online = routes.map { SetupNetwork.hasDefaultRoute(routeTable: $0) } ?? false
        guard
            SetupNetwork.shouldOpen(
                setting: setting, setupPending: notes.setupPending, screen: screen, online: online,
                adapter: adapter != nil),
            let adapter
        else {
            let why = adapter == nil ? "no Wi-Fi adapter" : online ? "a network with a way out is up" : "a screen is connected"
            if why != lastWhy { logger.info("wifi: no set-up network (\(why)); looking again every 30 s") }
            lastWhy = why
            _ = timer.arm(after: 30)
            return
        }
        let mac = (RegularFile.head(paths.system("/sys/class/net/\(adapter)/address"), count: 32)).map {
            String(decoding: $0, as: UTF8.self)
        }
        let name = SetupNetwork.name(mac: mac ?? "")
        guard
            let code = web.pairingCode(role: .admin, name: "set-up phone", now: controller.nowSeconds(), lifetime: 3600)
                .web?.code
        else { return }
        guard wifi.openSetupNetwork(name: name, passphrase: SetupNetwork.passphrase(code: code)) else {
            _ = timer.arm(after: 10)  // a scan or a join is under way
            return
        }
        self.code = code
        logger.notice("wifi: no network and no screen: opening the set-up network \(name)")
    }

    /// The `wifi` thread opened it, or could not.
    func opened(name: String, _ outcome: Result<[HeardNetwork], WifiFailure>) {
        switch outcome {
        case .success(let heard):
            notes.setupNetwork = (name, heard)
            announce()
        case .failure(let failure):
            logger.warning("wifi: the set-up network \(name) did not open: \(failure); trying again in a minute")
            _ = timer.arm(after: 60)
        }
    }

    /// A `wifi join` ended: on the household's network (`network`), or not.
    func joined(network: String?, address: String?, _ response: Response) {
        guard notes.setupNetwork != nil else { return }
        let port = web.servingPort ?? 8080
        if let network {
            notes.setupNetwork = nil
            code = nil
            logger.notice("wifi: on \(network); the set-up network is closed")
            controller.say(SetupNetwork.joined(network: network, address: address, port: port))
        } else {
            controller.say((response.error?.message ?? "The network was not joined") + ". The set-up network is back.")
        }
    }

    private func announce() {
        guard let setup = notes.setupNetwork, let code else { return }
        controller.say(SetupNetwork.announcement(name: setup.name, code: code, port: web.servingPort ?? 8080))
    }

    /// A display is connected (/sys/class/drm/*/status says "connected").
    static func hasScreen(_ paths: Paths) -> Bool {
        let folder = paths.system("/sys/class/drm")
        return Folder.names(folder).contains { name in
            name.contains("-")
                && RegularFile.head(folder + "/" + name + "/status", count: 16).map {
                    String(decoding: $0, as: UTF8.self).hasPrefix("connected")
                } == true
        }
    }
}
