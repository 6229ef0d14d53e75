import ArgumentParser
import Glibc
import ReveilleCore
import ReveilleProtocol

/// `reveille upgrade-window`: the card image's unattended upgrades ask it first (an
/// `ExecCondition=` of apt-daily.service and apt-daily-upgrade.service), and wait when it says so.
struct UpgradeWindowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade-window",
        abstract: "Whether system updates may run now: not during a ring, nor within an hour before one.",
        discussion: """
            Exits 0 when they may, 1 when they should wait (and says why), as systemd's \
            ExecCondition= reads it: the card image's apt-daily and apt-daily-upgrade services ask \
            it, so Debian's unattended upgrades never run near a ring. When reveilled does not \
            answer, nothing rings: it exits 0.
            """)

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let status: StatusInfo
        do {
            let response = try ControlClient.opening(for: .status, paths: connection.paths).send(.status)
            guard let info = response.status else {
                print("updates may run: reveilled answered without its status (\(response.error?.message ?? "?"))")
                return
            }
            status = info
        } catch {
            print("updates may run: reveilled does not answer (\(error)), so nothing rings")
            return
        }
        let ringing = status.session != nil || status.sunrise != nil
        if let why = UpgradeWindow.refusal(now: status.nowInstant, nextRing: status.nextRing?.instant, ringing: ringing)
        {
            print("updates wait: \(why)")
            throw ExitCode(1)
        }
        print(
            "updates may run"
                + (status.nextRing.map { ": the next alarm rings \($0.weekday) \($0.date) at \($0.time)" }
                    ?? ": no alarm ahead"))
    }
}
