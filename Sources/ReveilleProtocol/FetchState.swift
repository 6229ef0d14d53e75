import FoundationEssentials
import Glibc
import ReveilleSystem

/// How fetching a web calendar went, kept beside its cached body (`ID.json` next to `ID.ics`) by
/// `reveille calendar refresh`, and read by the daemon to say what is wrong.
public struct FetchState: Codable, Sendable, Equatable {
    /// The source it was fetched from (a calendar's URL may be changed by removing and adding it).
    public var url: String
    /// Validators of the cached body, sent back as If-None-Match and If-Modified-Since.
    public var etag: String?
    public var lastModified: String?
    /// When the cached body was last fetched or confirmed (304), seconds since the epoch.
    public var fetchedAt: Int?
    /// Failures in a row, and not before when to try again (backoff).
    public var failures: Int
    public var retryAfter: Int?
    /// The last failure's reason (`HTTP 404 Not Found`, `timed out after 30 s`), since when.
    public var error: String?
    public var errorSince: Int?
    /// The fetch request (`Paths.fetchRequest`, as written) there was at the last try: a request
    /// other than this one is owed a try. (Compared as written, not as a time: the daemon's clock
    /// and the fetcher's need not agree to the second.)
    public var answered: Int?

    /// How often the clock's fetcher runs: `reveille-calendar.timer`'s `OnUnitActiveSec` (a
    /// packaging test checks that they agree).
    public static let every = 6 * 3600

    /// When the fetcher tries by itself next, about: after the backoff, else a period after the
    /// last fetch; nil before the first.
    public var nextTry: Int? { retryAfter ?? fetchedAt.map { $0 + Self.every } }

    /// Whether a fetch asked for at `asked` (`Paths.fetchRequest`) has had no try since.
    public func owes(request asked: Int?) -> Bool {
        guard let asked else { return false }
        return asked != answered
    }

    /// A fetch asked for again this soon after the last, not yet tried, is the same request: the
    /// file is not written again (systemd's path unit stops after too many triggers in a row).
    public static let askAgainAfter = 60

    /// Whether a fetch asked for at `now` is a new request to write: not when the last one
    /// (`asked`) is less than `askAgainAfter` old and a calendar (`states`, nil: never fetched)
    /// still owes it a try.
    public static func isNewRequest(at now: Int, after asked: Int?, states: [FetchState?]) -> Bool {
        guard let asked, now - asked < askAgainAfter else { return true }
        return !states.contains { $0?.owes(request: asked) ?? true }
    }

    /// The instant a fetch request holds; nil without one. Read as `read` reads.
    public static func requested(at path: String) -> Int? {
        guard let bytes = RegularFile.head(path, count: 32), bytes.count < 32 else { return nil }
        return Int(String(decoding: bytes.filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }

    /// The largest `ID.json` read: a few hundred bytes in practice; a longer one is not read whole
    /// and so does not decode.
    static let maxBytes = 64 << 10

    public init(url: String) {
        self.url = url
        failures = 0
    }

    /// The wait before the next try after `failures` failures in a row: 5 minutes, doubling, at most 6 hours.
    public static func backoff(failures: Int) -> Int {
        min(6 * 3600, 300 << min(max(failures - 1, 0), 10))
    }

    public static func files(in folder: String, id: Int) -> (body: String, state: String) {
        (folder + "/\(id).ics", folder + "/\(id).json")
    }

    /// The state kept at `path`; nil when there is none or it does not read. The daemon reads it
    /// on its loop, and the fetcher that writes it talks to the network: only a regular file is
    /// opened (a FIFO in its place would block the loop), and no more than `maxBytes` of it.
    public static func read(_ path: String) -> FetchState? {
        guard let bytes = RegularFile.head(path, count: maxBytes) else { return nil }
        return try? JSONDecoder().decode(FetchState.self, from: Data(bytes))
    }
}
