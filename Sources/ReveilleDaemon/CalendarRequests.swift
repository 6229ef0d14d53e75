import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// `calendar add|list|rm|show` (docs/guide/schedule.md, "Holidays" and "Reminders"). A file's `calendar add` is
/// parked while the file is read off the loop (`calendarChecked` answers it).
final class CalendarRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let sounds: SoundCheck
    private let outlets: any Outlets
    private let logger: Logger
    private var calendars: Calendars { controller.calendars }
    private var zone: Zone { controller.zone }

    init(controller: Controller, store: Store, sounds: SoundCheck, outlets: any Outlets, logger: Logger) {
        self.controller = controller
        self.store = store
        self.sounds = sounds
        self.outlets = outlets
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        if case .calendarAdd(
            let name, let source, let purpose, let minutes, let sounds, let only, let except, let timed, let person) =
            request.command, !Calendars.isWeb(source), let offLoop = controller.offLoop,
            let connection = request.connection
        {
            let use = try CalendarUse(
                purpose: purpose, minutes: minutes, sounds: sounds, only: only, except: except, timed: timed,
                person: person, check: self.sounds.check)
            try checkFileCalendar(name: name, source: source)
            let (loader, today, zone) = (calendars.loader, controller.today(), zone)
            offLoop.run("calendar-check") {
                .calendarChecked(
                    connection: connection,
                    CalendarAddition(
                        name: name, source: source, use: use, checked: loader.check(source, today: today, zone: zone)))
            }
            return .parked
        }
        return .answer(try respond(to: request.command))
    }

    private func respond(to operation: Command) throws -> Response {
        switch operation {
        case .calendarAdd(
            let name, let source, let purpose, let minutes, let sounds, let only, let except, let timed, let person):
            let use = try CalendarUse(
                purpose: purpose, minutes: minutes, sounds: sounds, only: only, except: except, timed: timed,
                person: person, check: self.sounds.check)
            return try addCalendar(name: name, source: source, use: use)
        case .calendarList:
            var response = Response()
            let asked = FetchState.requested(at: calendars.loader.fetchRequest)  // read once for the list
            response.calendars = calendars.entries.map { calendarInfo($0, fetchAsked: asked) }
            return response
        case .calendarRemove(let which):
            let entry = try calendar(which)
            guard try store.deleteCalendar(id: Int(entry.record.id ?? 0)) else { throw noCalendar(which) }
            try? FileManager.default.removeItem(atPath: calendars.cacheFile(entry.record.id))
            // A web calendar's fetched copy is the fetcher's to replace: the next refresh of a new
            // calendar under this id starts afresh (it checks the address it fetched).
            _ = calendars.remove(id: entry.record.id, zone: zone)  // the machine hears in `Requests`
            logger.notice("calendar \(entry.record.name) removed")
            let effect =
                entry.record.purpose == .reminders
                ? "its events no longer chime" : "its holidays no longer silence alarms"
            return Response(message: "removed calendar \(entry.record.name); \(effect)")
        case .calendarFetchNow:
            return try askForFetch()
        case .calendarShow(let which, let days):
            let entry = try calendar(which)
            let today = controller.today()
            var info = calendarInfo(entry, fetchAsked: FetchState.requested(at: calendars.loader.fetchRequest))
            info.entries = entry.occurrences.filter { $0.falls(within: days, from: today) }.map { occurrence in
                let dates =
                    occurrence.firstDate == occurrence.lastDate
                    ? "\(occurrence.firstDate)" : "\(occurrence.firstDate) to \(occurrence.lastDate)"
                return "\(dates)  \(occurrence.summary)"
            }
            var response = Response()
            response.calendars = [info]
            return response
        default: throw misrouted(operation)
        }
    }

    /// The file of a parked `calendar add` was read: add it (or say why not) and answer.
    func calendarChecked(connection: Int, _ addition: CalendarAddition) {
        let asOf = controller.clock.instant()
        let operation = Command.calendarAdd(name: addition.name, source: addition.source)
        let response: Response
        do {
            try checkNameIsFree(addition.name)  // another add may have taken it meanwhile
            response = try addChecked(addition)
            controller.scheduleChanged(asOf: asOf, after: "'calendar add'")
        } catch {
            response = Requests.response(to: error, for: operation, logger: logger)
        }
        outlets.answer(connection, response)
    }

    private func addCalendar(name: String, source: String, use: CalendarUse) throws -> Response {
        try checkName(name)
        if Calendars.isWeb(source) {
            return try addWebCalendar(name: name, url: source, use: use)
        }
        try checkFileCalendar(name: name, source: source)
        return try addChecked(
            CalendarAddition(
                name: name, source: source, use: use,
                checked: calendars.loader.check(source, today: controller.today(), zone: zone)))
    }

    /// What `calendar add` of a file checks before reading it.
    private func checkFileCalendar(name: String, source: String) throws {
        try checkName(name)
        guard source.hasPrefix("/") else {
            throw InputError("\(source): give the file's absolute path")
        }
        // The daemon's rights may reach further than the admin's: only what anyone may read, or an
        // admin could have it read (and quote in an error) a file that is not theirs.
        if let hidden = CalendarLoader.notPublic(source) {
            throw Refusal(
                .refused,
                "\(hidden) is not readable by everyone; a calendar must be (chmod o+r, and o+x on its folders)")
        }
        try checkNameIsFree(name)
    }

    /// Adds a calendar whose file read well: written down, in use at once (from what the check
    /// read), and read again with the others.
    private func addChecked(_ addition: CalendarAddition) throws -> Response {
        let (name, source, use) = (addition.name, addition.source, addition.use)
        let occurrences: [CalendarOccurrence]
        switch addition.checked {
        case .success(let found): occurrences = found
        case .failure(let error): throw InputError("\(CalendarAddress.shown(source)) \(error); nothing added")
        }
        let now = controller.nowSeconds()
        let record = try store.insert(use.record(name: name, source: source, addedAt: now))
        _ = calendars.add(Calendars.Entry(record: record, occurrences: occurrences, loadedAt: now), zone: zone)
        controller.calendarsEdited()
        let message: String
        if use.purpose == .reminders {
            let events = occurrences.filter { ($0.start ?? 0) > now }.count
            logger.notice(
                "calendar \(name) added (#\(record.id ?? 0)): \(CalendarAddress.shown(source)), \(counted(events, "timed event")) ahead"
            )
            message =
                "added calendar \(name) (#\(record.id ?? 0)): \(counted(events, "timed event")) in the next two years; "
                + "each chimes \(use.minutesText) (an event's own alarms replace these)"
        } else {
            let filter = use.holidays
            let days = CalendarOccurrence.holidays(occurrences.lazy.filter { filter.dropped($0) == nil }).keys.filter {
                $0 >= controller.today()
            }.count
            logger.notice(
                "calendar \(name) added (#\(record.id ?? 0)): \(CalendarAddress.shown(source)), \(counted(days, "holiday date")) ahead"
            )
            message =
                "added calendar \(name) (#\(record.id ?? 0)): \(counted(days, "holiday date")) in the next two years; "
                + "alarms with --skip-holidays stay silent on them"
        }
        var response = Response(message: message)
        response.calendars = calendars.entries.filter { $0.record.id == record.id }.map {
            calendarInfo($0, fetchAsked: nil)  // a file calendar: nothing of it is fetched
        }
        return response
    }

    private func checkName(_ name: String) throws {
        guard name.count <= 32, name.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9_.-]*/) != nil
        else {
            throw InputError(
                "calendar name \"\(name)\": use letters, digits, '-', '_' or '.', at most 32, like \"school\"")
        }
    }

    private func checkNameIsFree(_ name: String) throws {
        if let existing = calendars.entries.first(where: { $0.record.name == name }) {
            throw Refusal(
                .conflict,
                "a calendar named \(name) exists (#\(existing.record.id ?? 0), \(CalendarAddress.shown(existing.record.source))); "
                    + "'reveille calendar rm \(name)' first, or pick another name")
        }
    }

    /// A web calendar is only written down here: `reveille calendar refresh`, an unprivileged
    /// process, fetches it into the cache this daemon reads.
    private func addWebCalendar(name: String, url: String, use: CalendarUse) throws -> Response {
        guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty, url.count <= 2048,
            !url.contains(where: { $0.isWhitespace })
        else {
            throw InputError("\(url): not a web address; give one like https://example.org/holidays.ics")
        }
        try checkNameIsFree(name)
        let now = controller.nowSeconds()
        let record = try store.insert(use.record(name: name, source: url, addedAt: now))
        _ = calendars.add(
            Calendars.Entry(
                record: record, problem: ("\(CalendarAddress.shown(url)) \(CalendarLoader.notFetchedYet)", now)),
            zone: zone)
        controller.calendarsEdited()
        logger.notice(
            "calendar \(name) added (#\(record.id ?? 0)): \(CalendarAddress.shown(url)), to be fetched by 'reveille calendar refresh'"
        )
        return Response(
            message:
                "added calendar \(name) (#\(record.id ?? 0)) from \(CalendarAddress.shown(url)); it is read once fetched: "
                + "'reveille calendar refresh --background' now (the timer does it every six hours), "
                + "or 'reveille calendar refresh' as a user who may write \(calendars.fetchFolder)")
    }

    /// Writes the request `reveille-calendar.path` watches: the daemon itself never fetches.
    private func askForFetch() throws -> Response {
        let web = calendars.entries.filter { Calendars.isWeb($0.record.source) }
        guard !web.isEmpty else {
            throw Refusal(.notFound, "no web calendars to fetch; a calendar file is read again whenever it changes")
        }
        let now = controller.nowSeconds()
        let path = calendars.loader.fetchRequest
        let names = web.map(\.record.name).joined(separator: ", ")
        let asked = FetchState.requested(at: path)
        if let asked,
            !FetchState.isNewRequest(
                at: now, after: asked, states: web.map { calendars.loader.fetchState(of: $0.record) })
        {
            return Response(
                message:
                    "a fetch was asked for at \(AppSupervisor.stamp(asked, zone: zone)); the fetcher is on it (\(names))"
            )
        }
        // Written whole (a new file renamed over the old) and readable by the fetcher
        // (reveille-fetch), whatever the daemon's umask.
        let staged = path + ".new"
        do {
            try Data("\(now)\n".utf8).write(to: URL(fileURLWithPath: staged))
            guard chmod(staged, 0o644) == 0, rename(staged, path) == 0 else {
                throw CalendarFetchError(String(cString: strerror(errno)))
            }
        } catch {
            unlink(staged)
            throw Refusal(.internal, "cannot write \(path) to ask for a fetch: \(error)")
        }
        logger.notice("a fetch of the web calendars is asked for (\(names))")
        return Response(
            message: "asked the fetcher to fetch \(names) now; 'reveille calendar list' shows when each arrives")
    }

    private func calendar(_ which: String) throws -> Calendars.Entry {
        let entry = calendars.entries.first { "\($0.record.id ?? 0)" == which || $0.record.name == which }
        guard let entry else { throw noCalendar(which) }
        return entry
    }

    private func noCalendar(_ which: String) -> Refusal {
        Refusal(.notFound, "no calendar \(which); 'reveille calendar list' shows them")
    }

    /// `fetchAsked`: the fetch request in force (`Paths.fetchRequest`), read by the caller once.
    private func calendarInfo(_ entry: Calendars.Entry, fetchAsked asked: Int?) -> CalendarInfo {
        let today = controller.today()
        var info = CalendarInfo(
            id: Int(entry.record.id ?? 0), name: entry.record.name, source: CalendarAddress.shown(entry.record.source),
            purpose: entry.record.purpose,
            problem: entry.problem.map { "\($0.text) (since \(AppSupervisor.stamp($0.since, zone: zone)))" },
            loadedAt: entry.loadedAt.map { AppSupervisor.stamp($0, zone: zone) })
        if Calendars.isWeb(entry.record.source) {
            let state = calendars.loader.fetchState(of: entry.record)
            info.fetchedAt = state?.fetchedAt.map { AppSupervisor.stamp($0, zone: zone) }
            if state?.owes(request: asked) ?? (asked != nil) {
                info.fetchAsked = asked.map { AppSupervisor.stamp($0, zone: zone) }
            } else {
                info.nextFetch = state?.nextTry.map { AppSupervisor.stamp($0, zone: zone) }
            }
        }
        if entry.record.purpose == .reminders {
            let now = controller.nowSeconds()
            let id = Int(entry.record.id ?? 0)
            // A chime that played is not next, even when its event moved later (it does not play again).
            let played = store.recentChimeKeys(before: now)
            let ahead = calendars.chimes.filter {
                $0.instant > now && $0.key.hasPrefix("calendar:\(id):") && !played.contains($0.key)
            }
            info.upcomingDays = Set(ahead.map(\.day)).count
            info.next = ahead.first.map { "\(controller.view.chimeStamp($0.instant)) \($0.text)" }
            info.minutes = entry.record.reminderMinutes
            info.person = entry.record.person
            let filter = entry.record.holidayFilter
            if !filter.only.isEmpty || !filter.except.isEmpty { info.filter = filter.description }
            let sounds = entry.record.reminderSounds
            info.sounds =
                sounds.isEmpty ? nil : Dictionary(uniqueKeysWithValues: sounds.map { (String($0.key), $0.value) })
        } else {
            let (kept, left) = entry.holidays
            let ahead = CalendarOccurrence.holidays(kept).filter { $0.key >= today }
            info.upcomingDays = ahead.count
            info.next = ahead.min { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            info.filter = entry.record.holidayFilter.description
            info.kept = kept.count { $0.lastDate >= today }
            let dropped = left.filter { $0.event.lastDate >= today }.map {
                "\($0.event.firstDate) \($0.event.summary): \($0.why)"
            }
            info.dropped = dropped.isEmpty ? nil : Array(dropped.prefix(20))
        }
        return info
    }
}

struct CalendarFetchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a parked `calendar add` read off the loop, for the loop to finish.
struct CalendarAddition: Sendable {
    let name: String
    let source: String
    let use: CalendarUse
    let checked: Result<[CalendarOccurrence], CalendarError>
}

/// What a calendar is added for: holidays, or reminders at some minutes before each event with a
/// sound for some of them. Checked before anything is written.
struct CalendarUse: Sendable {
    let purpose: CalendarPurpose
    let minutes: [Int]
    let sounds: [Int: String]
    let holidays: HolidayFilter
    /// A reminder calendar's person (`--for`).
    let person: String?

    init(
        purpose: String?, minutes: [Int]?, sounds: [String: String]?, only: String? = nil, except: String? = nil,
        timed: Bool? = nil, person: String? = nil, check: (String, String) throws -> Void
    ) throws {
        if let person, !person.isEmpty {
            self.person = try Reminder.checkPerson(person)
            try ReminderRequests.checkUser(person)
        } else {
            self.person = nil
        }
        guard let chosen = CalendarPurpose(rawValue: purpose ?? "holidays") else {
            throw InputError("calendar purpose \"\(purpose ?? "")\": holidays or reminders")
        }
        self.purpose = chosen
        switch chosen {
        case .holidays:
            guard minutes == nil, sounds == nil else {
                throw InputError("--minutes and --sound are for reminder calendars (--reminders), not holidays")
            }
            self.minutes = []
            self.sounds = [:]
            holidays = try HolidayFilter(only: only, except: except, timed: timed ?? false)
            guard self.person == nil else {
                throw InputError("--for is for reminder calendars (--reminders): holidays are the household's")
            }
        case .reminders:
            guard timed == nil else {
                throw InputError("--timed is for holiday calendars: a reminder calendar chimes before every event")
            }
            // Words to keep or leave out, as a holiday calendar's (the notifier design): every
            // event, timed or all-day, that they let through chimes.
            holidays = try HolidayFilter(only: only, except: except, timed: true)
            let given = minutes ?? [15]
            guard !given.isEmpty, given.count <= 6, given.allSatisfy({ (0...10_080).contains($0) }) else {
                throw InputError(
                    "--minutes: give 1 to 6 offsets of 0-10080 minutes before each event, like --minutes 60,15")
            }
            self.minutes = Array(Set(given)).sorted(by: >)
            var byOffset: [Int: String] = [:]
            for (key, path) in sounds ?? [:] {
                guard let offset = Int(key), self.minutes.contains(offset) else {
                    throw InputError(
                        "--sound \(key)=\(path): \(key) is not one of the offsets (--minutes \(self.minutes.map(String.init).joined(separator: ",")))"
                    )
                }
                try check(path, "--sound \(key)=")
                byOffset[offset] = path
            }
            self.sounds = byOffset
        }
    }

    func record(name: String, source: String, addedAt: Int) -> CalendarRecord {
        var record = CalendarRecord(
            name: name, source: source, purpose: purpose, addedAt: addedAt, minutes: minutes, sounds: sounds)
        record.holidayOnly = holidays.only.joined(separator: "|")
        record.holidayExcept = holidays.except.joined(separator: "|")
        record.holidayTimed = holidays.timed
        record.person = person
        return record
    }

    /// `60 and 15 minutes before`.
    var minutesText: String {
        let parts = minutes.map { $0 == 0 ? "at the start" : "\($0)" }
        return parts.count == 1 && minutes[0] == 0
            ? "at its start"
            : "\(parts.joined(separator: ", ")) \(minutes == [1] ? "minute" : "minutes") before"
    }
}
