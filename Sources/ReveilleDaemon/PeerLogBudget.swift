import Glibc
import Logging
import ReveilleCore
import ReveilleSystem
import Synchronization

/// What one user of the control sockets can make the daemon log: `burst` lines at once, then one
/// every `secondsPerLine`. `apps.sock` is open to every local user; without a budget, anyone could
/// write a thousand lines a second and push the daemon's own lines ("rings", "THE ALARM IS
/// SILENT") out of journald's per-service limit. What is not logged is counted, and said in one
/// line when the user may log again.
///
/// The control server runs a peer's requests inside `serving(_:limited:_:)`, on the loop's thread;
/// a line logged from another thread meanwhile (the audio's, the reader's) is never counted.
public final class PeerLogBudget: Sendable {
    /// The daemon's: the log handler and the control server share it.
    public static let shared = PeerLogBudget()

    public let burst: Double
    public let secondsPerLine: Double
    /// The most users kept track of; the fullest are forgotten first beyond it.
    static let maxAccounts = 256

    private struct Account {
        var tokens: Double
        var last: Double
        var unsaid = 0
    }

    private struct State {
        var serving: (thread: pthread_t, uid: uid_t)?
        var accounts: [uid_t: Account] = [:]
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> Double

    public init(burst: Int = 20, secondsPerLine: Double = 2, now: @escaping @Sendable () -> Double = Monotonic.seconds)
    {
        self.burst = Double(burst)
        self.secondsPerLine = secondsPerLine
        self.now = now
    }

    /// Runs `body` with what it logs on this thread counted against `uid`, when `limited` (a peer
    /// below the admin group: the household's rights, or none).
    public func serving<T>(_ uid: uid_t, limited: Bool, _ body: () throws -> T) rethrows -> T {
        guard limited else { return try body() }
        let outer = state.withLock { state in
            defer { state.serving = (pthread_self(), uid) }
            return state.serving
        }
        defer { state.withLock { $0.serving = outer } }
        return try body()
    }

    /// Whether a line logged now on this thread is written, and a line to write before it (how
    /// many of the user's lines were not).
    func admit() -> (write: Bool, note: String?) {
        let time = now()
        return state.withLock { state in
            guard let serving = state.serving, pthread_equal(serving.thread, pthread_self()) != 0 else {
                return (true, nil)
            }
            var account = state.accounts[serving.uid] ?? Account(tokens: burst, last: time)
            account.tokens = min(burst, account.tokens + max(0, time - account.last) / secondsPerLine)
            account.last = time
            guard account.tokens >= 1 else {
                account.unsaid += 1
                remember(serving.uid, account, in: &state)
                return (false, nil)
            }
            account.tokens -= 1
            let note =
                account.unsaid == 0
                ? nil
                : "uid \(serving.uid): \(account.unsaid) more lines its requests caused were not logged (at most \(Int(burst)) at once, then one every \(NumberText.fixed(secondsPerLine, 0)) s)"
            account.unsaid = 0
            remember(serving.uid, account, in: &state)
            return (true, note)
        }
    }

    private func remember(_ uid: uid_t, _ account: Account, in state: inout State) {
        state.accounts[uid] = account
        guard state.accounts.count > Self.maxAccounts,
            let fullest = state.accounts.filter({ $0.value.unsaid == 0 }).max(by: { $0.value.tokens < $1.value.tokens })
        else { return }
        state.accounts[fullest.key] = nil
    }
}

/// Passes each line to `inner` unless the peer being served has spent its `PeerLogBudget`.
public struct PeerBudgetLogHandler: LogHandler {
    private var inner: any LogHandler
    private let budget: PeerLogBudget

    public init(_ inner: any LogHandler, budget: PeerLogBudget = .shared) {
        self.inner = inner
        self.budget = budget
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        let (write, note) = budget.admit()
        if let note {
            var said = event
            said.level = .notice
            said.message = "\(note)"
            said.metadata = nil
            inner.log(event: said)
        }
        if write { inner.log(event: event) }
    }
}
