import CNotifyBus
import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol

/// `reveille-notify` (docs/guide/apps.md, "A child's side"): one per graphical session, as the user. It
/// follows the daemon's stream for that user on the apps socket (open to everyone, own apps only) and shows desktop notifications through the
/// session's notification service (freedesktop Notifications over D-Bus): 15, 5 and 1 minutes
/// before an app's time runs out, when an app is refused, and the answer to a request for more
/// time. A time notice offers "Ask for 30 more minutes", which sends `apps ask`. A reminder for
/// this user (`reminder add --for`) shows with its line and place, and offers "Again in 10
/// minutes", which sends `reminder again`.
///
/// Idle, it sleeps in poll(2) on two descriptors (the daemon's socket and the bus) and wakes for
/// nothing else; while the daemon is away it tries again with a growing pause (up to a minute).
/// It ends when the session bus goes (the session ended).
final class Notifier {
    let socketPath: String
    let user: String
    let askMinutes: Int
    private var bus: OpaquePointer?
    private var daemon: ControlClient?
    /// The app each notification that offers "ask" is about, by notification id (the latest few).
    private var asking: [(id: UInt32, app: String)] = []
    /// The chime each reminder notice is about, by notification id (the latest few).
    private var chimes: [(id: UInt32, key: String)] = []
    private var retrySeconds = 1
    private var daemonWasUp = true

    static let askKey = "ask"
    static let againKey = "again"

    init(socketPath: String, user: String, askMinutes: Int = 30) {
        self.socketPath = socketPath
        self.user = user
        self.askMinutes = askMinutes
    }

    func run() -> Int32 {
        var error: Int32 = 0
        guard let bus = RV_notify_open(&error) else {
            say("cannot reach the session bus: \(String(cString: strerror(-error))); is this a graphical session?")
            return 1
        }
        self.bus = bus
        defer { RV_notify_close(bus) }
        say("following \(socketPath) for \(user)")
        while true {
            if daemon == nil { connect() }
            var fds = [pollfd(fd: RV_notify_fd(bus), events: Int16(RV_notify_events(bus)), revents: 0)]
            if let daemon { fds.append(pollfd(fd: daemon.descriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout: Int32 = daemon == nil ? Int32(retrySeconds * 1000) : -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR {
                say("poll: \(String(cString: strerror(errno)))")
                return 1
            }
            if RV_notify_process(bus) < 0 {
                say("the session bus went away; ending")
                return 0
            }
            takeActions()
            if fds.count > 1, fds[1].revents != 0 { readDaemon() }
        }
    }

    // MARK: The daemon

    private func connect() {
        do {
            let client = try ControlClient(path: socketPath)
            let first = try client.send(.watch)
            if let error = first.error { throw ControlClient.Failure.garbled(error.message) }
            daemon = client
            retrySeconds = 1
            if !daemonWasUp { say("reveilled answers again") }
            daemonWasUp = true
        } catch {
            if daemonWasUp { say("cannot follow reveilled (\(error)); trying again") }
            daemonWasUp = false
            retrySeconds = min(60, retrySeconds * 2)
        }
    }

    private func readDaemon() {
        guard let daemon else { return }
        do {
            guard let first = try daemon.readLine() else {
                say("reveilled closed the connection; trying again")
                self.daemon = nil
                daemonWasUp = false
                return
            }
            var line: [UInt8]? = first
            while let current = line {
                if let watched = try? JSONDecoder().decode(WatchLine.self, from: Data(current)) {
                    handle(watched.event)
                }
                line = daemon.bufferedLine()
            }
        } catch {
            say("reading from reveilled: \(error); trying again")
            self.daemon = nil
        }
    }

    /// What this user hears: their own notices and answers (the daemon sends a user without
    /// rights only those; one with rights hears the household's, which are left out here).
    private func handle(_ event: WatchEvent) {
        switch event {
        case .appNotice(let notice) where notice.user == user:
            let offersAsk = notice.kind == .timeLeft
            let id = show(
                AppNoticeText.title(notice), AppNoticeText.body(notice),
                action: offersAsk ? (Self.askKey, "Ask for \(askMinutes) more minutes") : nil)
            if offersAsk, let id {
                asking.append((id, notice.app))
                if asking.count > 8 { asking.removeFirst() }
            }
        case .reminder(let chime) where chime.user == user:
            let id = show(
                chime.text, chime.detail ?? "\(chime.origin), \(chime.due)",
                action: chime.key.map { _ in (Self.againKey, "Again in \(Chime.againSeconds / 60) minutes") })
            if let id, let key = chime.key {
                chimes.append((id, key))
                if chimes.count > 8 { chimes.removeFirst() }
            }
        case .appRequest(let request) where request.user == user && request.state != .waiting:
            show(
                AppNoticeText.title(request),
                request.state == .approved
                    ? "You have \(request.minutes) more minutes of \(request.app) today."
                    : "No more time for \(request.app) today.",
                action: nil)
        default: break
        }
    }

    // MARK: Notifications

    @discardableResult
    private func show(_ title: String, _ body: String, action: (key: String, label: String)?) -> UInt32? {
        guard let bus else { return nil }
        var id: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let result = RV_notify_send(
            bus, "Reveille", title, body, action?.key, action?.label, -1, &id, &message, Int32(message.count))
        guard result == 0 else {
            say("cannot show \"\(title)\": \(String(cString: message))")
            return nil
        }
        say("shown: \(title)")
        return id
    }

    /// "Ask for more" tapped: the request goes to the daemon, and its answer comes as a notice.
    private func takeActions() {
        guard let bus else { return }
        var id: UInt32 = 0
        var key = [CChar](repeating: 0, count: 64)
        while RV_notify_take_action(bus, &id, &key, Int32(key.count)) == 1 {
            if String(cString: key) == Self.againKey, let chime = chimes.first(where: { $0.id == id })?.key {
                chimes.removeAll { $0.id == id }
                again(chime)
                continue
            }
            guard String(cString: key) == Self.askKey, let app = asking.first(where: { $0.id == id })?.app else {
                continue
            }
            asking.removeAll { $0.id == id }
            do {
                let response = try ControlClient(path: socketPath).send(
                    .appAsk(name: app, minutes: askMinutes, why: "asked from a notification"))
                if let error = response.error {
                    show("Could not ask for more \(app)", error.message, action: nil)
                } else {
                    show(
                        "Asked for \(askMinutes) more minutes of \(app)", "You will hear the answer here.", action: nil)
                }
            } catch {
                show("Could not ask for more \(app)", "\(error)", action: nil)
            }
        }
    }

    /// "Again in 10 minutes" tapped: the daemon plays the chime again then, and this notice with it.
    private func again(_ key: String) {
        do {
            let response = try ControlClient(path: socketPath).send(.chimeAgain(key: key))
            if let error = response.error { show("Could not remind you again", error.message, action: nil) }
        } catch {
            show("Could not remind you again", "\(error)", action: nil)
        }
    }

    /// A line on standard error: the session's journal keeps it.
    private func say(_ text: String) {
        var line = "reveille-notify: \(text)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}

/// The program `reveille-notify` (and `reveilled` started under that name).
public enum NotifyMain {
    static let usage = """
        Usage: reveille-notify [--root DIR] [--minutes N]

        Shows desktop notifications about your own apps: 15, 5 and 1 minutes before an app's time
        runs out, when an app is refused, and the answer to a request for more time. A notice of
        time running out offers to ask an admin for N more minutes (default 30). Reminders set for
        you (reveille reminder add --for YOU) show too, and offer "Again in 10 minutes".

        Started in each graphical session (XDG autostart: /etc/xdg/autostart/reveille-notify.desktop).
        It needs no group membership: the daemon tells each user only about their own apps and
        reminders.

          --root DIR     the folder the daemon runs under (default: $REVEILLE_ROOT, else /)
          --minutes N    what "ask for more" asks for, 5-120 in steps of 5 (default 30)
          --help         show this help

        """

    public static func start() -> Never {
        var root: String?
        var minutes = 30
        var arguments = CommandLine.arguments.dropFirst()
        func fail(_ message: String) -> Never {
            var text = "reveille-notify: \(message)\n" + usage
            text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            exit(64)
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--help", "-h":
                var text = usage
                text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
                exit(0)
            case "--root":
                guard let value = arguments.popFirst() else { fail("--root needs a folder") }
                root = value
            case "--minutes":
                guard let value = arguments.popFirst().flatMap({ Int($0) }),
                    AppAsking.refusal(minutes: value, why: nil, waiting: 0, today: 0) == nil
                else { fail("--minutes: give 5-120, in steps of 5") }
                minutes = value
            default: fail("unknown argument \(Sanitized.line(argument))")
            }
        }
        let paths = Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
        let notifier = Notifier(
            socketPath: paths.appsSocket, user: ProcessOwner.name(of: getuid()), askMinutes: minutes)
        exit(notifier.run())
    }
}
