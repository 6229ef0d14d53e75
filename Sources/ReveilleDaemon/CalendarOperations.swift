import Foundation
import ReveilleProtocol
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// `calendar add|list|rm|show` (README, "Holidays").
extension Controller {
    func calendarOperation(_ operation: Command) throws -> Response {
        switch operation {
        case .calendarAdd(let name, let source):
            return try addCalendar(name: name, source: source)
        case .calendarList:
            var response = Response()
            response.calendars = calendars.entries.map { calendarInfo($0) }
            return response
        case .calendarRemove(let which):
            let entry = try calendar(which)
            guard try store.deleteCalendar(id: Int(entry.record.id ?? 0)) else { throw noCalendar(which) }
            try? FileManager.default.removeItem(atPath: calendars.cacheFile(entry.record.id))
            // A web calendar's fetched copy is the fetcher's to replace: the next refresh of a new
            // calendar under this id starts afresh (it checks the address it fetched).
            reloadCalendars(publish: false)
            logger.notice("calendar \(entry.record.name) removed")
            return Response(message: "removed calendar \(entry.record.name); its holidays no longer silence alarms")
        case .calendarShow(let which, let days):
            guard (1...HolidayCalendars.spanDays).contains(days) else {
                throw InputError(
                    "--days \(days): must be 1-\(HolidayCalendars.spanDays) (calendars are read two years ahead)")
            }
            let entry = try calendar(which)
            let today = self.today()
            let last = today.adding(days: days - 1)
            var info = calendarInfo(entry)
            info.entries = entry.occurrences.filter { $0.lastDate >= today && $0.firstDate <= last }.map { occurrence in
                let dates =
                    occurrence.firstDate == occurrence.lastDate
                    ? "\(occurrence.firstDate)" : "\(occurrence.firstDate) to \(occurrence.lastDate)"
                return "\(dates)  \(occurrence.summary)"
            }
            var response = Response()
            response.calendars = [info]
            return response
        default:
            return Response()
        }
    }

    /// Reads every calendar again; when the holidays changed, the machine hears of it.
    func reloadCalendars(publish: Bool = true) {
        do {
            let now = self.now()
            let changed = calendars.reload(try store.calendars(), today: now.date, zone: zone, now: now.instant)
            if changed && publish {
                carryOut(machine.scheduleChanged(try currentState(today: now.date), now: now.instant))
            }
        } catch {
            logger.error("calendars: could not read the list: \(error)")
        }
        onCalendarsChanged()
    }

    /// Something changed in a folder holding a calendar file: read the calendars there again.
    func calendarFolderChanged(_ folder: String) {
        guard calendars.entries.contains(where: { calendars.folder(of: $0.record) == folder }) else { return }
        tick()  // what is due by the old holidays rings first
        reloadCalendars()
    }

    /// `calendar X: why (since when); the copy read at ... is used`, for status and doctor.
    func calendarProblems() -> [String] {
        calendars.entries.compactMap { entry in
            guard let problem = entry.problem else { return nil }
            let meanwhile =
                entry.loadedAt.map { "using the copy read \(AppSupervisor.stamp($0, zone: zone))" }
                ?? "no good copy yet: its holidays are not known"
            return
                "calendar \(entry.record.name): \(problem.text) (since \(AppSupervisor.stamp(problem.since, zone: zone))); \(meanwhile)"
        }
    }

    private func addCalendar(name: String, source: String) throws -> Response {
        try checkName(name)
        if HolidayCalendars.isWeb(source) {
            return try addWebCalendar(name: name, url: source)
        }
        guard source.hasPrefix("/") else {
            throw InputError("\(source): give the file's absolute path")
        }
        // The daemon's rights may reach further than the admin's: only what anyone may read, or an
        // admin could have it read (and quote in an error) a file that is not theirs.
        if let hidden = HolidayCalendars.notPublic(source) {
            throw Refusal(
                .refused,
                "\(hidden) is not readable by everyone; a calendar must be (chmod o+r, and o+x on its folders)")
        }
        try checkNameIsFree(name)
        let occurrences: [CalendarOccurrence]
        switch calendars.check(source, today: today(), zone: zone) {
        case .success(let found): occurrences = found
        case .failure(let error): throw InputError("\(source) \(error); nothing added")
        }
        let record = try store.insert(
            CalendarRecord(name: name, source: source, purpose: "holidays", addedAt: nowSeconds()))
        reloadCalendars(publish: false)
        let days = CalendarOccurrence.holidays(occurrences).keys.filter { $0 >= today() }.count
        logger.notice("calendar \(name) added (#\(record.id ?? 0)): \(source), \(days) holiday dates ahead")
        var response = Response(
            message:
                "added calendar \(name) (#\(record.id ?? 0)): \(days) holiday dates in the next two years; "
                + "alarms with --skip-holidays stay silent on them")
        response.calendars = calendars.entries.filter { $0.record.id == record.id }.map { calendarInfo($0) }
        return response
    }

    private func checkName(_ name: String) throws {
        guard name.count <= 32, name.range(of: #"^[A-Za-z0-9][A-Za-z0-9_.-]*$"#, options: .regularExpression) != nil
        else {
            throw InputError(
                "calendar name \"\(name)\": use letters, digits, '-', '_' or '.', at most 32, like \"school\"")
        }
    }

    private func checkNameIsFree(_ name: String) throws {
        if let existing = calendars.entries.first(where: { $0.record.name == name }) {
            throw Refusal(
                .conflict,
                "a calendar named \(name) exists (#\(existing.record.id ?? 0), \(existing.record.source)); "
                    + "'reveille calendar rm \(name)' first, or pick another name")
        }
    }

    /// A web calendar is only written down here: `reveille calendar refresh`, an unprivileged
    /// process, fetches it into the cache this daemon reads.
    private func addWebCalendar(name: String, url: String) throws -> Response {
        guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty, url.count <= 2048,
            !url.contains(where: { $0.isWhitespace })
        else {
            throw InputError("\(url): not a web address; give one like https://example.org/holidays.ics")
        }
        try checkNameIsFree(name)
        let record = try store.insert(
            CalendarRecord(name: name, source: url, purpose: "holidays", addedAt: nowSeconds()))
        reloadCalendars(publish: false)
        logger.notice(
            "calendar \(name) added (#\(record.id ?? 0)): \(url), to be fetched by 'reveille calendar refresh'")
        return Response(
            message:
                "added calendar \(name) (#\(record.id ?? 0)) from \(url); it is read once fetched: "
                + "'sudo systemctl start reveille-calendar' now (the timer does it every six hours), "
                + "or 'reveille calendar refresh' as a user who may write \(calendars.fetchFolder)")
    }

    private func calendar(_ which: String) throws -> HolidayCalendars.Entry {
        let entry = calendars.entries.first { "\($0.record.id ?? 0)" == which || $0.record.name == which }
        guard let entry else { throw noCalendar(which) }
        return entry
    }

    private func noCalendar(_ which: String) -> Refusal {
        Refusal(.notFound, "no calendar \(which); 'reveille calendar list' shows them")
    }

    private func calendarInfo(_ entry: HolidayCalendars.Entry) -> CalendarInfo {
        let today = self.today()
        let ahead = CalendarOccurrence.holidays(entry.occurrences).filter { $0.key >= today }
        let next = ahead.min { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return CalendarInfo(
            id: Int(entry.record.id ?? 0), name: entry.record.name, source: entry.record.source,
            purpose: entry.record.purpose, upcomingDays: ahead.count, next: next,
            problem: entry.problem.map { "\($0.text) (since \(AppSupervisor.stamp($0.since, zone: zone)))" },
            loadedAt: entry.loadedAt.map { AppSupervisor.stamp($0, zone: zone) })
    }
}
