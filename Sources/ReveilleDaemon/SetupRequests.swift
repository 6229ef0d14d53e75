import CTimeDate
import FoundationEssentials
import Glibc
import Logging
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// The first boot's set-up, from the clock's screen (hardware.md, "The image"): the image leaves
/// `first-setup` in the state folder; the screen asks where the clock is, the zone is set, the
/// marker goes, and the answer carries a code that pairs the household's first phone as an admin.
/// Whether it may be done is `FirstSetup.refusal`'s to say.
final class SetupRequests: RequestHandler {
    /// Sets the system's time zone to a checked tzdata name.
    typealias ZoneSetter = @Sendable (String) throws -> Void

    private let marker: String
    private let notes: DaemonNotes
    private let web: WebRequests
    private let clock: any Clocks
    private let setZone: ZoneSetter
    private let logger: Logger

    init(
        paths: Paths, notes: DaemonNotes, web: WebRequests, clock: any Clocks, setZone: ZoneSetter? = nil,
        logger: Logger
    ) {
        self.marker = Self.marker(paths)
        self.notes = notes
        self.web = web
        self.clock = clock
        self.setZone = setZone ?? Self.systemSetter(paths)
        self.logger = logger
        notes.setupPending = access(marker, F_OK) == 0
    }

    /// The file the image leaves for the set-up to be asked.
    static func marker(_ paths: Paths) -> String { paths.stateDirectory + "/first-setup" }

    func handle(_ request: Asked) throws -> Handled {
        guard case .firstSetup(let zone) = request.command else { throw misrouted(request.command) }
        let file = ZoneInfo.file(for: zone)
        var info = stat()
        let exists = FirstSetup.isZoneName(zone) && stat(file, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        if let why = FirstSetup.refusal(pending: notes.setupPending, zone: zone, zoneExists: exists) {
            throw Refusal(.refused, why)
        }
        do {
            try setZone(zone)
        } catch {
            logger.error("first set-up: the time zone \(zone) could not be set: \(error)")
            throw Refusal(
                .internal,
                "the time zone could not be set (\(error)); try again, or: sudo timedatectl set-timezone \(zone)")
        }
        if unlink(marker) != 0, errno != ENOENT {
            logger.warning("first set-up: \(marker) could not be removed (errno \(errno)); the screen may ask again")
        }
        notes.setupPending = false
        logger.notice("first set-up: time zone \(zone); a code for the first phone made")
        var response = web.pairingCode(role: .admin, name: "first phone", now: Int(clock.now().timeIntervalSince1970))
        response.message = "time zone set to \(zone)"
        return .answer(response)
    }

    struct SetError: Error, CustomStringConvertible {
        let description: String
    }

    /// On the system, systemd-timedated over D-Bus (allowed to the daemon's user by the package's
    /// polkit rule); under `--root DIR`, the folder's own zone link (DIR/etc/localtime), which
    /// the daemon follows as it follows the system's.
    static func systemSetter(_ paths: Paths) -> ZoneSetter {
        if paths.isSystem {
            return { zone in
                var message = [CChar](repeating: 0, count: 256)
                let result = RV_set_timezone(zone, &message, message.count)
                if result < 0 {
                    throw SetError(
                        description: String(
                            decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
            }
        }
        let link = paths.root + "/etc/localtime"
        return { zone in
            _ = mkdir(paths.root + "/etc", 0o755)
            do throws(SystemCallError) {
                try RegularFile.replaceLink(link, to: ZoneInfo.file(for: zone))
            } catch {
                throw SetError(description: "\(link): \(String(cString: strerror(error.errno)))")
            }
        }
    }
}
