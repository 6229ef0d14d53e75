import FoundationEssentials
import Glibc
import ReveilleCalendar
import ReveilleProtocol
import ReveilleCore
import ReveilleSystem

/// `reveille calendar refresh`: fetches each web calendar into the cache folder, the daemon's only
/// way to see it (the daemon itself never touches the network). A body is kept only once libical
/// reads it as a calendar; it replaces the last one atomically. How it went, with the validators
/// for the next conditional request and the backoff after failures, is written beside it.
public struct CalendarRefresh {
    public struct Source: Sendable {
        public let id: Int
        public let name: String
        public let url: String

        public init(id: Int, name: String, url: String) {
            self.id = id
            self.name = name
            self.url = url
        }
    }

    public let folder: String
    public let limits: HTTPFetch.Limits
    /// Try even while backing off after failures.
    public let force: Bool
    /// When a fetch was last asked for (`calendar refresh --background`): a calendar not tried
    /// since is tried now, as with `force`.
    public let requested: Int?
    /// Reads a fetched body as libical would: nil when it is a calendar, else why not. The tool
    /// gives one that parses in a confined child process (`CalendarCheck`), so a calendar that
    /// would take libical forever costs one child its CPU bound, not the whole refresh.
    public let validate: @Sendable (Data, CivilDate) -> String?
    /// The daemon's time zone: the times said (the next try) are on its wall clock.
    public let zone: Zone

    public init(
        folder: String, limits: HTTPFetch.Limits = .init(), force: Bool = false, requested: Int? = nil,
        zone: Zone = .utc, validate: @escaping @Sendable (Data, CivilDate) -> String? = CalendarRefresh.parseHere
    ) {
        self.zone = zone
        self.requested = requested
        self.folder = folder
        self.limits = limits
        self.validate = validate
        self.force = force
    }

    /// One line for people, and whether it failed.
    public func refresh(_ source: Source, now: Int = Int(Date().timeIntervalSince1970)) -> (line: String, failed: Bool)
    {
        let files = FetchState.files(in: folder, id: source.id)
        var state =
            FetchState.read(files.state).flatMap { $0.url == source.url ? $0 : nil } ?? FetchState(url: source.url)
        if !force, !state.owes(request: requested), let after = state.retryAfter, after > now {
            return (
                "\(source.name): \(state.error ?? "failed") \(failures(state)); next try after \(stamp(after)) (--force tries now)",
                false
            )
        }
        let hasBody = FileManager.default.fileExists(atPath: files.body)
        state.answered = requested
        let outcome = HTTPFetch.get(
            source.url, etag: hasBody ? state.etag : nil, lastModified: hasBody ? state.lastModified : nil,
            limits: limits)
        let line: String
        var failed = false
        switch outcome {
        case .fetched(let body, let etag, let lastModified):
            if let problem = check(body, now: now) {
                line = fail(&state, "\(problem); not taken", hasBody: hasBody, name: source.name, now: now)
                failed = true
            } else if let error = write(body, to: files.body) {
                line = "\(source.name): cannot write \(files.body): \(error)"
                failed = true
            } else {
                state.etag = etag
                state.lastModified = lastModified
                succeed(&state, now: now)
                line = "\(source.name): fetched \(body.count / 1024) KiB from \(CalendarAddress.shown(source.url))"
            }
        case .notModified:
            succeed(&state, now: now)
            line = "\(source.name): not modified (\(CalendarAddress.shown(source.url)))"
        case .failed(let reason):
            line = fail(&state, reason, hasBody: hasBody, name: source.name, now: now)
            failed = true
        }
        if let error = write(try! JSONEncoder().encode(state), to: files.state) {
            return ("\(line)\n\(source.name): cannot write \(files.state): \(error)", true)
        }
        return (line, failed)
    }

    private func succeed(_ state: inout FetchState, now: Int) {
        state.fetchedAt = now
        state.failures = 0
        state.retryAfter = nil
        state.error = nil
        state.errorSince = nil
    }

    private func fail(_ state: inout FetchState, _ reason: String, hasBody: Bool, name: String, now: Int) -> String {
        if state.error != reason || state.errorSince == nil { state.errorSince = now }
        state.error = reason
        state.failures += 1
        state.retryAfter = now + FetchState.backoff(failures: state.failures)
        let kept = hasBody ? "keeping the copy fetched \(state.fetchedAt.map(stamp) ?? "earlier")" : "no copy yet"
        return
            "\(name): \(CalendarAddress.shown(state.url)): \(reason); \(kept); next try after \(stamp(state.retryAfter!))"
    }

    private func failures(_ state: FetchState) -> String {
        state.failures == 1 ? "(1 failure)" : "(\(state.failures) failures in a row)"
    }

    /// nil when the body is a calendar libical reads; else why not, with the line.
    private func check(_ body: Data, now: Int) -> String? {
        validate(body, CivilDate(dayNumber: now / 86_400))
    }

    /// Parses in this process, unbounded: for tests of the refresh logic only.
    public static func parseHere(_ body: Data, today: CivilDate) -> String? {
        guard let text = String(data: body, encoding: .utf8) else { return "not UTF-8 text" }
        do {
            _ = try ICalendar.occurrences(in: text, from: today, through: today.adding(days: 1), zone: .utc)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Written beside, then renamed over: the daemon never reads half a file.
    private func write(_ data: Data, to path: String) -> String? {
        do {
            try RegularFile.replace(path, with: Array(data))
            return nil
        } catch {
            return error.reason
        }
    }

    /// `2026-11-25 23:05` on the daemon's wall clock.
    private func stamp(_ instant: Int) -> String {
        let local = ZoneResolver(zone: zone).local(at: instant)
        return "\(local.date) \(local.time.hoursAndMinutes)"
    }
}
