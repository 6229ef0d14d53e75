import Foundation
import ReveilleCore
import ReveilleTestSupport
import Testing

@testable import ReveilleConfig

/// Zone rules read from tzdata through glibc (issue 16, part 1).
@Suite(.serialized) struct ZoneInfoTests {
    /// Standard time +03:17, summer time +04:17 from the last Sunday of March 02:00 to the last
    /// Sunday of October 03:00: no built-in copy of the rules knows this zone.
    static let testland = """
        Rule	Test	2020	max	-	Mar	lastSun	2:00	1:00	D
        Rule	Test	2020	max	-	Oct	lastSun	3:00	0	S
        Zone	Testland/Capital	3:17	Test	T%sT

        """

    private func utc(_ text: String) -> Int {
        Int(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970)
    }

    @Test func theSystemsRulesAgreeWithTheBuiltInOnesForARealZone() throws {
        let path = ZoneInfo.file(for: "Europe/Berlin", directory: "/usr/share/zoneinfo")
        try #require(
            FileManager.default.fileExists(atPath: path),
            "tzdata is not installed (scripts/install-deps.sh installs it)")
        let system = try #require(ZoneInfo.load("Europe/Berlin", directory: "/usr/share/zoneinfo"))
        let builtIn = try #require(Zone(builtIn: "Europe/Berlin"))
        #expect(!system.isBuiltIn)
        #expect(system.origin.hasPrefix("tzdata 20"))
        // Every hour from 2020 to 2030.
        let differ = stride(from: utc("2020-01-01T00:00:00Z"), to: utc("2030-01-01T00:00:00Z"), by: 3600).filter {
            system.secondsFromGMT(at: $0) != builtIn.secondsFromGMT(at: $0)
        }
        #expect(differ.isEmpty, "the rules differ at \(differ.prefix(5))")
        let spring = utc("2026-03-29T01:00:00Z")
        #expect(system.secondsFromGMT(at: spring - 1) == 3600)
        #expect(system.secondsFromGMT(at: spring) == 7200)
    }

    @Test func aMadeUpZoneIsReadFromTZDIRToTheSecond() throws {
        let compiler = try ZoneCompiler()
        defer { compiler.remove() }
        try compiler.compile(Self.testland)
        try "# version 2099z\n".appending(Self.testland).write(
            to: compiler.directory.appendingPathComponent("tzdata.zi"), atomically: true, encoding: .utf8)
        let directory = compiler.directory.path

        #expect(Zone(builtIn: "Testland/Capital") == nil)
        #expect(ZoneInfo.isKnown("Testland/Capital", directory: directory))
        let zone = try #require(ZoneInfo.load("Testland/Capital", directory: directory))
        #expect(zone.identifier == "Testland/Capital")
        #expect(zone.origin == "tzdata 2099z")
        // 2027-03-28 02:00 at +03:17 is 2027-03-27 22:43 UTC; 2027-10-31 03:00 at +04:17 is 22:43 the day before.
        let spring = utc("2027-03-27T22:43:00Z")
        let autumn = utc("2027-10-30T22:43:00Z")
        #expect(zone.secondsFromGMT(at: spring - 1) == 3 * 3600 + 17 * 60)
        #expect(zone.secondsFromGMT(at: spring) == 4 * 3600 + 17 * 60)
        #expect(zone.secondsFromGMT(at: autumn - 1) == 4 * 3600 + 17 * 60)
        #expect(zone.secondsFromGMT(at: autumn) == 3 * 3600 + 17 * 60)

        // The resolver bends a time in the spring-forward gap the usual way.
        var resolver = ZoneResolver(zone: zone)
        let gap = resolver.resolve(CivilDate(year: 2027, month: 3, day: 28)!, LocalTime(hour: 2, minute: 30)!)
        #expect(gap.shift == .gap)
        #expect(gap.instant == spring)
        let morning = resolver.resolve(CivilDate(year: 2027, month: 3, day: 28)!, LocalTime(hour: 7, minute: 0)!)
        #expect(morning.instant == utc("2027-03-28T02:43:00Z"))
    }

    @Test func rulesCompiledAgainAreReadAgain() throws {
        let compiler = try ZoneCompiler()
        defer { compiler.remove() }
        try compiler.compile(Self.testland)
        let directory = compiler.directory.path
        let before = try #require(ZoneInfo.load("Testland/Capital", directory: directory))
        // Same file name, likely within the same second (glibc keeps a file it has read while TZ, its
        // inode and its time stay the same).
        try compiler.compile(Self.testland.replacingOccurrences(of: "3:17", with: "5:00"))
        let after = try #require(ZoneInfo.load("Testland/Capital", directory: directory))
        let winter = utc("2027-01-15T12:00:00Z")
        #expect(before.secondsFromGMT(at: winter) == 3 * 3600 + 17 * 60)
        #expect(after.secondsFromGMT(at: winter) == 5 * 3600)
        #expect(before != after)
        // Loading leaves the process's own TZ as it was.
        #expect(getenv("TZ").map { String(cString: $0) } == ProcessInfo.processInfo.environment["TZ"])
    }

    @Test func namesThatAreNotZonesAreRefused() throws {
        let compiler = try ZoneCompiler()
        defer { compiler.remove() }
        let directory = compiler.directory.path
        try "not a zone file".write(
            to: compiler.directory.appendingPathComponent("Notes"), atomically: true, encoding: .utf8)
        #expect(!ZoneInfo.isKnown("Mars/Olympus", directory: directory))
        #expect(ZoneInfo.load("Mars/Olympus", directory: directory) == nil)
        // glibc would read a file that is not a zone as UTC, silently: it is refused instead.
        #expect(ZoneInfo.load("Notes", directory: directory) == nil)
        for name in [
            "", "../../etc/passwd", "Europe/../../etc/passwd", "/etc/passwd", "Europe//Berlin", "Europe/Berlin ",
        ] {
            #expect(!ZoneInfo.isKnown(name, directory: directory), "\(name)")
        }
        // A name the system's folder lacks but the built-in rules know still works, and says so.
        let builtIn = try #require(ZoneInfo.load("Asia/Tokyo", directory: directory))
        #expect(builtIn.isBuiltIn)
        #expect(builtIn.origin == "built-in rules")
    }
}
