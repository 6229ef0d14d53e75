import Foundation
import ReveilleProtocol
import ReveilleTestSupport
import Testing

/// The daemon takes its zone rules from the system's tzdata and follows an update while it runs
/// (issue 16, part 1): a made-up zone, compiled by zic into a TZDIR of the test's own.
@Suite struct ZoneRulesTests {
    /// +03:17, summer time +04:17 from the last Sunday of `spring` 02:00 to the last Sunday of October.
    static func testland(spring: String = "Mar", standard: String = "3:17") -> String {
        """
        Rule	Test	2020	max	-	\(spring)	lastSun	2:00	1:00	D
        Rule	Test	2020	max	-	Oct	lastSun	3:00	0	S
        Zone	Testland/Capital	\(standard)	Test	T%sT

        """
    }

    @Test func aNamedZoneComesFromTZDIRAndEachUpdateMovesTheNextRingLeakingNothing() throws {
        let tzdata = try ZoneCompiler()
        defer { tzdata.remove() }
        try tzdata.compile(Self.testland())
        // Saturday 2027-03-27, 15:17 in Testland; summer time starts tonight at 02:00.
        let daemon = try DaemonHarness(
            zone: "Testland/Capital", now: utc("2027-03-27T12:00:00Z"),
            environment: ["TZDIR": tzdata.directory.path])
        _ = try daemon.cli("alarm", "add", "07:00", "--days", "daily")
        let before = try #require(try daemon.request(.status).status)
        #expect(before.timeZone == "Testland/Capital")
        #expect(before.nextRing?.time == "07:00")
        #expect(before.nextRing?.instant == utc("2027-03-28T02:43:00Z"))  // 07:00 at +04:17

        // The country moves summer time to April; the new rules are compiled over the old file.
        try tzdata.compile(Self.testland(spring: "Apr"))
        #expect(
            try daemon.waitFor(5) {
                try daemon.request(.status).status?.nextRing?.instant == utc("2027-03-28T03:43:00Z")  // at +03:17
            })
        #expect(daemon.logText().contains("the rules of time zone Testland/Capital changed"))
        #expect(try daemon.request(.status).status?.nextRing?.time == "07:00")

        // Replaced again and again, with calendars read again each time, the file leaks nothing:
        // each new file is followed and the descriptors come back to where they were.
        try DescriptorTests().addCalendars(to: daemon)
        let descriptors = DescriptorTests.steadyDescriptors(daemon)
        for hours in 4..<9 {
            try tzdata.compile(Self.testland(spring: "Apr", standard: "\(hours):17"))
            #expect(
                daemon.waitFor(5) { DescriptorTests.utcOffset(daemon) == hours * 3600 + 17 * 60 }, "UTC+\(hours):17")
        }
        let after = DescriptorTests.steadyDescriptors(daemon)
        #expect(after == descriptors, "descriptors went from \(descriptors) to \(after)")
        #expect(daemon.answersStatus())
    }

    @Test func theSystemZoneLinkedIntoTZDataIsFollowedAcrossAnUpdateAndWritesBesideItLeakNothing() throws {
        let tzdata = try ZoneCompiler()
        defer { tzdata.remove() }
        try tzdata.compile(Self.testland())
        let file = tzdata.directory.appendingPathComponent("Testland/Capital").path
        let daemon = try DaemonHarness(zoneLink: file, now: utc("2027-01-15T12:00:00Z"))
        _ = try daemon.cli("alarm", "add", "07:00", "--days", "daily")
        let before = try #require(try daemon.request(.status).status)
        #expect(before.timeZone == "Testland/Capital")
        #expect(before.nextRing?.instant == utc("2027-01-16T03:43:00Z"))
        #expect(daemon.logText().contains("time zone Testland/Capital (the system's) from tzdata file \(file)"))

        try tzdata.compile(Self.testland(standard: "5:00"))
        #expect(
            try daemon.waitFor(5) {
                try daemon.request(.status).status?.nextRing?.instant == utc("2027-01-16T02:00:00Z")
            })
        try DescriptorTests.churnTheZoneLinksFolder(of: daemon)
    }

    @Test func aZoneNeitherTZDataNorTheBuiltInRulesKnowIsRefusedAtStart() throws {
        let tzdata = try ZoneCompiler()
        defer { tzdata.remove() }
        let outcome = try runProcess(
            Binaries.daemon, ["--root", tzdata.directory.path, "--time-zone", "Testland/Capital"],
            environment: ["TZDIR": tzdata.directory.path])
        #expect(outcome.status == 64)
        #expect(
            outcome.stderr.contains(
                "time zone \"Testland/Capital\" is not a time zone (none such in \(tzdata.directory.path))"))
    }
}
