import Foundation
import ReveilleProtocol
import Testing

/// Descriptors stay flat however often the folders the daemon watches are written: on a Pi,
/// fake-hwclock writes /etc every hour and DHCP rewrites resolv.conf.
@Suite struct DescriptorTests {
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// What each descriptor is, for a failure's message.
    static func descriptors(_ pid: Int32) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return names.sorted { Int($0)! < Int($1)! }.map {
            "\($0)->" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?")
        }
    }

    /// The daemon's descriptors once the readings, 50 ms apart, have agreed for a second: the
    /// calendar reads and the settle timers of what came before are done. (Two readings agreeing
    /// were not enough on a loaded machine: a calendar's reader, still running, held a pipe in
    /// the first snapshot, which then read as a descriptor gone.)
    static func steadyDescriptors(_ daemon: DaemonHarness) -> [String] {
        var last: [String]?
        var now: [String] = []
        var agreeing = 0
        _ = daemon.waitFor(20) {
            now = descriptors(daemon.process.processIdentifier)
            agreeing = now == last ? agreeing + 1 : 0
            last = now
            return agreeing >= 20
        }
        return now
    }

    /// The daemon's offset from UTC in seconds, from its `status` (its local time against the instant).
    static func utcOffset(_ daemon: DaemonHarness) -> Int? {
        guard let status = try? daemon.request(.status).status,
            let local = ISO8601DateFormatter().date(from: status.now.replacingOccurrences(of: " ", with: "T") + "Z")
        else { return nil }
        return Int(local.timeIntervalSince1970) - status.nowInstant
    }

    /// Two holiday calendars in two folders of their own.
    func addCalendars(to daemon: DaemonHarness) throws {
        for name in ["school", "work"] {
            let folder = daemon.root.appendingPathComponent("cal-\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("\(name).ics").path
            try CalendarTests.thanksgiving.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try daemon.cli("calendar", "add", name, file, "--holidays").status == 0)
        }
    }

    /// Writes to the folder of the zone link (as fake-hwclock's to /etc), then the link replaced as
    /// timedatectl does: descriptors stay flat, the new zone is followed, and status and doctor count
    /// what /proc does. For a daemon that follows its root's `etc/localtime`, with no calendars yet.
    static func churnTheZoneLinksFolder(of daemon: DaemonHarness) throws {
        try DescriptorTests().addCalendars(to: daemon)
        let etc = daemon.root.appendingPathComponent("etc")
        let before = Self.steadyDescriptors(daemon)
        for index in 0..<400 {
            try "\(index)".write(to: etc.appendingPathComponent("fake-hwclock.data"), atomically: true, encoding: .utf8)
        }
        // A leak never comes back down; a settle timer or a calendar read's pipe does.
        var afterWrites: [String] = []
        #expect(
            daemon.waitFor(10) {
                afterWrites = Self.descriptors(daemon.process.processIdentifier)
                return afterWrites == before
            }, "descriptors went from \(before) to \(afterWrites)")
        // The zone link replaced too, as timedatectl does: it is still followed.
        try daemon.changeZoneLink(to: "America/New_York")
        #expect(try daemon.waitFor(5) { try daemon.request(.status).status?.timeZone == "America/New_York" })
        // Following the new zone's folder costs one watch (its inotify descriptor and settle timer);
        // the calendars are read again for the new zone meanwhile (a helper's pipe, then closed).
        var after: [String] = []
        #expect(
            daemon.waitFor(10) {
                after = Self.descriptors(daemon.process.processIdentifier)
                return after.count <= before.count + 2
            }, "descriptors went from \(before) to \(after)")

        // status and doctor show the same counts, against their limits.
        let use = try #require(try daemon.request(.status).status?.resources)
        let counted = Self.openDescriptors(daemon.process.processIdentifier)
        #expect(abs((use.openDescriptors ?? -100) - counted) <= 2, "\(use) against \(counted) in /proc")
        // The zone's folders, the config folder and the two calendar folders, each watched once.
        #expect((3...12).contains(use.inotifyWatches ?? -1), "\(use)")
        #expect((use.descriptorLimit ?? 0) >= 1024 && (use.inotifyWatchLimit ?? 0) > 0 && (use.threads ?? 0) >= 1)
        #expect(try daemon.cli("status").stdout.contains(" descriptors open, "))
        let doctor = try daemon.cli("doctor").stdout
        #expect(
            doctor.split(separator: "\n").contains {
                $0.contains("descriptors") && $0.contains("of \(use.descriptorLimit ?? 0) descriptors open")
            }, "\(doctor)")
    }
}

extension DescriptorTests {
    /// A dispatch worker thread (libdispatch names them `...default-qos...`) brings its pool's 1 Hz
    /// monitor for the life of the process: the idle clock must start none, backups included.
    @Test func theDaemonStartsNoDispatchWorkerEvenWhenItBacksUpItsState() throws {
        let daemon = try DaemonHarness()
        #expect(try daemon.cli("alarm", "add", "7:00", "--days", "daily").status == 0)
        daemon.stop()
        let started = Date()
        try daemon.start()  // a checkpoint and a backup at the stop, another at the start
        let folder = (daemon.paths.database as NSString).deletingLastPathComponent
        func backedUp() -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: folder + "/state.backup.sqlite"))?[.modificationDate]
                as? Date
        }
        #expect(daemon.waitFor(5) { (backedUp() ?? .distantPast) >= started.addingTimeInterval(-1) })
        #expect(try daemon.settle())
        let pid = daemon.process.processIdentifier
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).map {
            (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8)) ?? ""
        }
        #expect(!names.contains { $0.contains("qos") }, "threads: \(names)")
        #expect(FileManager.default.fileExists(atPath: folder + "/state.backup.sqlite"))
    }
}
