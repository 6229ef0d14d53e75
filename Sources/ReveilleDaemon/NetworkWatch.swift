import CNetworkState
import Glibc
import Logging
import ReveilleProtocol

/// The machine's network as systemd-networkd says (its manager's OperationalState, on the system
/// bus), followed on the loop: networkd's PropertiesChanged (and the service coming or going) is
/// read at once, logged once, and told to watchers. The daemon opens nothing to the network and
/// starts nothing: where networkd does not run, there is nothing to say. Each question to
/// networkd waits half a second at most.
final class NetworkWatch {
    private let loop: EventLoop
    private let logger: Logger
    private var watch: OpaquePointer?
    private let changed: (NetworkInfo?) -> Void
    /// What networkd says now; nil where it says nothing.
    private(set) var info: NetworkInfo?

    init(loop: EventLoop, logger: Logger, changed: @escaping (NetworkInfo?) -> Void) {
        self.loop = loop
        self.logger = logger
        self.changed = changed
        guard let opened = RV_network_watch_open() else {
            logger.info("network: not followed (no system bus: \(String(cString: strerror(errno))))")
            return
        }
        watch = opened
        do {
            try loop.watch(RV_network_watch_fd(opened)) { [unowned self] _ in heard() }
        } catch {
            logger.warning("network: not followed: \(error)")
            RV_network_watch_close(opened)
            watch = nil
            return
        }
        info = current()
        if let info { logger.info("network: \(info.words) (networkd: \(info.state))") }
    }

    deinit { close() }

    private func close() {
        guard let watch else { return }
        loop.unwatch(RV_network_watch_fd(watch))
        RV_network_watch_close(watch)
        self.watch = nil
    }

    private func heard() {
        guard let watch else { return }
        let result = RV_network_watch_process(watch)
        if result < 0 {
            logger.warning(
                "network: the system bus went away (\(String(cString: strerror(-result)))); no longer followed")
            close()
            return
        }
        guard result > 0 else { return }
        let now = current()
        guard now != info else { return }
        info = now
        logger.notice("network: \(now.map { "\($0.words) (networkd: \($0.state))" } ?? "networkd no longer says")")
        changed(now)
    }

    /// networkd's operational state now, in words; nil when it says nothing.
    private func current() -> NetworkInfo? {
        guard let watch else { return nil }
        var state = [CChar](repeating: 0, count: 64)
        guard RV_network_state(watch, &state, state.count) == 0 else { return nil }
        return NetworkInfo.from(operationalState: String(cString: state))
    }
}
