import FoundationEssentials
import Glibc
import Logging
import ReveilleProtocol
import ReveilleCore
import ReveilleStore
import ReveilleSystem

/// The calendars (docs/guide/schedule.md, "Holidays" and "Reminders"): holiday calendars, whose days silence
/// --skip-holidays alarms, and reminder calendars, whose events chime. Each is an iCalendar file (or the fetched copy of a web
/// calendar, which `reveille calendar refresh` keeps in `Paths.calendarCache`) read with libical and
/// expanded over two years from today. A good read is copied to `STATE/calendars/ID.ics`; when the
/// source is broken or gone the last good copy (in memory, else that file) stays in use, and the
/// problem is kept with since when, for `status`, `calendar list` and `doctor`.
///
/// Confined to the loop. Reading is not done here: it waits on files and on a helper process, so
/// `CalendarLoader` does it on a thread of its own (`OffLoop`), and `install` takes what it read.
final class Calendars {

    struct Entry: Sendable {
        var record: CalendarRecord
        var occurrences: [CalendarOccurrence] = []
        /// When the copy in use was read; nil: no copy was ever good.
        var loadedAt: Int?
        var problem: (text: String, since: Int)?
        /// What `occurrences` were read from: the text's hash, the span and the zone. The
        /// same again (a refresh that found nothing new rewrites only its notes) is not parsed again.
        var parsed: ParseKey?
        /// What failed to parse last, and why: the same text is not parsed again (a calendar that
        /// costs its reader its CPU bound costs it once, not at every change in its folder).
        var failed: (key: ParseKey, error: CalendarError)?

        /// A holiday calendar's events that are holidays by its filter, and those it leaves out
        /// with why, each judged once.
        var holidays: (kept: [CalendarOccurrence], left: [(event: CalendarOccurrence, why: String)]) {
            let filter = record.holidayFilter
            var split: (kept: [CalendarOccurrence], left: [(event: CalendarOccurrence, why: String)]) = ([], [])
            for occurrence in occurrences {
                if let why = filter.dropped(occurrence) {
                    split.left.append((occurrence, why))
                } else {
                    split.kept.append(occurrence)
                }
            }
            return split
        }
    }

    struct ParseKey: Equatable, Sendable {
        let text: Int
        let span: CalendarSpan
        let zone: Zone
    }

    /// One read of every calendar: what it starts from, for the loader's thread.
    struct Reading: Sendable {
        let records: [CalendarRecord]
        let previous: [Int64?: Entry]
        let span: CalendarSpan
        let zone: Zone
        let now: Int
    }

    private(set) var entries: [Entry] = []
    /// The span last read (nil before the first read); a new one is read a week on.
    private(set) var span: CalendarSpan?
    /// Dates holiday-skipping alarms keep silent, with what the day is.
    private(set) var holidays: [CivilDate: String] = [:]
    /// Events of holiday calendars their filters leave out, by date (`ScheduleState.notHolidays`).
    private(set) var notHolidays: [CivilDate: String] = [:]
    /// The chimes of reminder calendars, in order.
    private(set) var chimes: [Chime] = []
    /// A read is under way on the loader's thread; `again`: something changed since it began.
    private(set) var reading = false
    private var again = false
    /// Calendars removed and added while a read was under way: it must not bring back the one, nor
    /// lose the other.
    private var removedMeanwhile: Set<Int64?> = []
    private var addedMeanwhile: [Entry] = []
    let loader: CalendarLoader
    var cacheFolder: String { loader.cacheFolder }
    var fetchFolder: String { loader.fetchFolder }

    init(loader: CalendarLoader) {
        self.loader = loader
    }

    static func isWeb(_ source: String) -> Bool {
        source.hasPrefix("http://") || source.hasPrefix("https://")
    }

    func file(of record: CalendarRecord) -> String { loader.file(of: record) }

    /// The folder to watch for a calendar.
    func folder(of record: CalendarRecord) -> String {
        PathName.folder(file(of: record))
    }

    /// A read of every calendar to hand to the loader, or nil when one is under way (it is read
    /// again when that one is in: `install` says so).
    func beginReading(_ records: [CalendarRecord], today: CivilDate, zone: Zone, now: Int) -> Reading? {
        guard !reading else {
            again = true
            return nil
        }
        reading = true
        again = false
        removedMeanwhile = []
        addedMeanwhile = []
        let span = CalendarSpan(today: today)
        self.span = span
        return Reading(
            records: records, previous: Dictionary(entries.map { ($0.record.id, $0) }) { first, _ in first },
            span: span, zone: zone, now: now)
    }

    /// Takes what a read found, for the calendars that are still there (one removed meanwhile stays
    /// removed; one added meanwhile keeps the entry of its check). Returns whether the holidays or
    /// chimes changed, and whether to read again (something changed while it read).
    func install(_ read: [Entry], zone: Zone) -> (changed: Bool, readAgain: Bool) {
        let kept = read.filter { !removedMeanwhile.contains($0.record.id) }
        let ids = Set(kept.map(\.record.id))
        entries = kept + addedMeanwhile.filter { !ids.contains($0.record.id) }
        reading = false
        removedMeanwhile = []
        addedMeanwhile = []
        return (recompute(zone: zone), again)
    }

    /// A calendar just added (its check read it, or a web calendar not fetched yet): in use at
    /// once, before the next read.
    func add(_ entry: Entry, zone: Zone) -> Bool {
        entries.append(entry)
        if reading {
            addedMeanwhile.append(entry)
            again = true
        }
        return recompute(zone: zone)
    }

    /// A calendar just removed.
    func remove(id: Int64?, zone: Zone) -> Bool {
        entries.removeAll { $0.record.id == id }
        if reading { removedMeanwhile.insert(id) }
        return recompute(zone: zone)
    }

    /// Holidays and chimes from the entries. Returns whether they changed.
    private func recompute(zone: Zone) -> Bool {
        let before = (holidays, chimes, notHolidays)
        let split = entries.filter { $0.record.purpose == .holidays }.map(\.holidays)
        holidays = CalendarOccurrence.holidays(split.flatMap(\.kept))
        notHolidays = CalendarOccurrence.holidays(split.flatMap { $0.left.map(\.event) })
        chimes = CalendarReminders.sorted(
            entries.filter { $0.record.purpose == .reminders }.flatMap { entry in
                CalendarReminders.chimes(
                    calendarID: Int(entry.record.id ?? 0), name: entry.record.name,
                    occurrences: entry.occurrences.filter { entry.record.holidayFilter.dropped($0) == nil },
                    minutes: entry.record.reminderMinutes, sounds: entry.record.reminderSounds, zone: zone,
                    person: entry.record.person)
            })
        return holidays != before.0 || chimes != before.1 || notHolidays != before.2
    }

    /// Whether the span read has slid far enough behind today to read it again.
    func isStale(today: CivilDate) -> Bool {
        span?.isStale(today: today) ?? true
    }

    func cacheFile(_ id: Int64?) -> String { loader.cacheFile(id) }
}

/// Reads calendars: their files, and `reveille-calendar expand` (`CalendarReader`) for what is in
/// them. Everything here may wait (on the disk, on the helper for up to its time bound), so it runs
/// on a thread of its own, or at start-up before the loop runs; it shares nothing with the loop.
struct CalendarLoader: Sendable {
    let cacheFolder: String
    /// Where `reveille calendar refresh` leaves web calendars (`Paths.calendarCache`).
    let fetchFolder: String
    /// Where a fetch now is asked for (`Paths.fetchRequest`).
    let fetchRequest: String
    let reader: CalendarReader
    let logger: Logger

    static let notFetchedYet =
        "not fetched yet: the clock fetches web calendars two minutes after it starts and every six hours ('reveille calendar refresh' fetches it now)"

    /// The file read for a calendar: its own, or the fetched copy of a web calendar.
    func file(of record: CalendarRecord) -> String {
        Calendars.isWeb(record.source) ? FetchState.files(in: fetchFolder, id: Int(record.id ?? 0)).body : record.source
    }

    /// Every calendar of `reading`, each from its file (or its last good copy).
    func read(_ reading: Calendars.Reading) -> [Calendars.Entry] {
        reading.records.map { record in
            read(
                record, previous: reading.previous[record.id], span: reading.span, zone: reading.zone,
                now: reading.now)
        }
    }

    /// Reads one file, for `calendar add`, without keeping it: the error if it is not a calendar.
    func check(_ path: String, today: CivilDate, zone: Zone) -> Result<[CalendarOccurrence], CalendarError> {
        let text: String
        do {
            text = try SmallFile.read(path, maxBytes: SmallFile.maxCalendarBytes)
        } catch {
            return .failure(CalendarError("cannot read it: \(Self.reason(error))"))
        }
        // Two adds may check at once: each stages its own copy.
        let staged = cacheFolder + "/adding-\(UInt64.random(in: 1...UInt64.max)).ics"
        defer { unlink(staged) }
        do {
            try stage(text, at: staged)
            return .success(try expand(staged, over: CalendarSpan(today: today), zone: zone))
        } catch let error as CalendarError {
            return .failure(error)
        } catch {
            return .failure(CalendarError("cannot stage it in \(cacheFolder): \(Self.reason(error))"))
        }
    }

    func cacheFile(_ id: Int64?) -> String {
        cacheFolder + "/\(id ?? 0).ics"
    }

    // MARK: Reading one calendar

    private func read(
        _ record: CalendarRecord, previous: Calendars.Entry?, span: CalendarSpan, zone: Zone, now: Int
    ) -> Calendars.Entry {
        var entry = previous ?? Calendars.Entry(record: record)
        entry.record = record
        let name = "calendar \(record.name)"
        let path = file(of: record)
        let outcome: Result<(String, [CalendarOccurrence]), CalendarError>
        do {
            // Only what anyone may read (see `calendar add`).
            if let hidden = Self.notPublic(path) {
                throw CalendarError("cannot read it: \(hidden) is not readable by everyone (chmod o+r)")
            }
            if Calendars.isWeb(record.source) && !FileManager.default.fileExists(atPath: path) {
                throw CalendarError(Self.notFetchedYet)
            }
            let text = try SmallFile.read(path, maxBytes: SmallFile.maxCalendarBytes)
            let key = Calendars.ParseKey(text: text.hashValue, span: span, zone: zone)
            if entry.parsed == key && entry.loadedAt != nil {
                outcome = .success((text, entry.occurrences))
            } else if let failed = entry.failed, failed.key == key {
                throw failed.error
            } else {
                // The reader parses exactly the text read here, from a copy of the daemon's own; a
                // good one becomes the last good copy.
                let staged = cacheFile(record.id) + ".reading"
                defer { unlink(staged) }
                try stage(text, at: staged)
                let expanded = expandRemembering(staged, key: key, into: &entry)
                outcome = .success((text, try expanded.get()))
                if rename(staged, cacheFile(record.id)) != 0 {
                    // In use now all the same; after a restart the copy before it is read.
                    logger.warning(
                        "calendar \(record.name): cannot keep the copy just read as the last good one: \(String(cString: strerror(errno)))"
                    )
                }
                entry.parsed = key
                entry.failed = nil
            }
        } catch let error as CalendarError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(CalendarError("cannot read it: \(Self.reason(error))"))
        }
        // A web calendar's fetched copy may read well while fetching fails: the fetcher says so beside it.
        let fetchProblem = Calendars.isWeb(record.source) ? fetchProblem(of: record) : nil
        switch outcome {
        case .success(let (_, occurrences)):
            let changed = occurrences != entry.occurrences
            entry.occurrences = occurrences
            entry.loadedAt = now
            if changed {
                logger.info(
                    record.purpose == .reminders
                        ? "\(name): \(counted(occurrences.filter { $0.start != nil }.count, "timed event")) read from \(CalendarAddress.shown(record.source))"
                        : "\(name): \(counted(CalendarOccurrence.holidays(entry.holidays.kept).count, "holiday date")) read from \(CalendarAddress.shown(record.source))"
                )
            }
            if let fetchProblem {
                note(fetchProblem, in: &entry, name: name)
            } else {
                if entry.problem != nil {
                    logger.notice("\(name): \(CalendarAddress.shown(record.source)) reads again")
                }
                entry.problem = nil
            }
        case .failure(let error):
            note(fetchProblem ?? ("\(CalendarAddress.shown(record.source)) \(error)", now), in: &entry, name: name)
            if entry.loadedAt == nil { readCopy(of: record, into: &entry, span: span, zone: zone) }
        }
        return entry
    }

    /// `expand`, remembering a failure with the key of what failed.
    private func expandRemembering(_ staged: String, key: Calendars.ParseKey, into entry: inout Calendars.Entry)
        -> Result<[CalendarOccurrence], CalendarError>
    {
        do {
            return .success(try expand(staged, over: key.span, zone: key.zone))
        } catch {
            entry.failed = (key, error)
            return .failure(error)
        }
    }

    /// How the fetcher last did with a web calendar (`ID.json`), if it was for this address.
    func fetchState(of record: CalendarRecord) -> FetchState? {
        FetchState.read(FetchState.files(in: fetchFolder, id: Int(record.id ?? 0)).state)
            .flatMap { $0.url == record.source ? $0 : nil }
    }

    /// The fetcher's last failure for a web calendar, with since when; nil when it went well.
    private func fetchProblem(of record: CalendarRecord) -> (text: String, since: Int)? {
        guard let state = fetchState(of: record), let error = state.error else { return nil }
        return ("\(CalendarAddress.shown(record.source)): \(error)", state.errorSince ?? 0)
    }

    /// Keeps a problem (a new one replaces the old, with its own since) and logs it once.
    private func note(_ problem: (text: String, since: Int), in entry: inout Calendars.Entry, name: String) {
        guard entry.problem?.text != problem.text else { return }
        entry.problem = problem
        let meanwhile = entry.loadedAt == nil ? "trying the last good copy" : "keeping the last good copy"
        logger.warning("\(name): \(problem.text); \(meanwhile)")
    }

    /// The file read by the helper process (`CalendarReader`), over `span`.
    private func expand(_ path: String, over span: CalendarSpan, zone: Zone) throws(CalendarError)
        -> [CalendarOccurrence]
    {
        try reader.read(path, from: span.start, through: span.end, zone: zone).get()
    }

    /// A copy of the text in the daemon's own folder, for the reader: once it reads well it becomes
    /// the last good copy (renamed over `ID.ics`), so that a broken or missing source after a
    /// restart still has its holidays.
    private func stage(_ text: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    private func readCopy(
        of record: CalendarRecord, into entry: inout Calendars.Entry, span: CalendarSpan, zone: Zone
    ) {
        let path = cacheFile(record.id)
        guard FileManager.default.fileExists(atPath: path),
            let occurrences = try? expand(path, over: span, zone: zone)
        else { return }
        entry.occurrences = occurrences
        entry.loadedAt = FileStatus(path)?.modified ?? 0
        logger.notice("calendar \(record.name): using the last good copy (\(path))")
    }

    /// The first of the file and its folders that others may not read (or pass through), if any.
    static func notPublic(_ path: String) -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var info = stat()
        guard stat(resolved, &info) == 0 else { return nil }  // missing: the read says so
        if info.st_mode & S_IROTH == 0 { return path }
        var folder = PathName.folder(resolved)
        while !folder.isEmpty {
            if stat(folder, &info) == 0, info.st_mode & S_IXOTH == 0 { return folder }
            if folder == "/" { break }
            folder = PathName.folder(folder)
        }
        return nil
    }

    static func reason(_ error: any Error) -> String {
        (error as? SmallFile.Problem)?.description ?? FileProblem.reason(error)
    }
}

extension Calendars {
    /// `calendar X: why (since when); the copy read at ... is used`, for status and doctor.
    func problems(zone: Zone) -> [String] {
        entries.compactMap { entry in
            guard let problem = entry.problem else { return nil }
            let meanwhile =
                entry.loadedAt.map { "using the copy read \(AppSupervisor.stamp($0, zone: zone))" }
                ?? entry.record.purpose.withoutACopy
            return
                "calendar \(entry.record.name): \(problem.text) (since \(AppSupervisor.stamp(problem.since, zone: zone))); \(meanwhile)"
        }
    }
}
