import Testing

@testable import ReveilleCore

/// Wall-clock times against the zone's transitions (docs/guide/schedule.md, "How the schedule decides"): a time in a gap rings at the first
/// instant after it; a time that happens twice rings once, at the first.
@Suite struct ZoneTests {
    /// UTC is the programs' fallback zone (no tzdata, a calendar checked before it is stored). It is
    /// a table of its own, not Foundation's `TimeZone`: FoundationEssentials, which is all the
    /// release programs link, does not know "UTC" by name (the force-unwrap that was here trapped).
    @Test func utcNeedsNoFoundationRules() {
        #expect(!Zone.utc.isBuiltIn)
        #expect(Zone.utc.identifier == "UTC")
        #expect(Zone.utc.secondsFromGMT(at: 0) == 0 && Zone.utc.secondsFromGMT(at: 4_102_444_800) == 0)
    }

    func resolve(_ zoneName: String, _ day: String, _ at: String) -> (Int, ZoneShift) {
        var resolver = ZoneResolver(zone: zone(zoneName))
        let result = resolver.resolve(date(day), time(at))
        return (result.instant, result.shift)
    }

    @Test func newYorkSpringForwardGapRingsWhenTheClockJumpsTo3() {
        // 2026-03-08 02:00 EST becomes 03:00 EDT, at 07:00Z.
        #expect(resolve("America/New_York", "2026-03-08", "02:30") == (utc("2026-03-08T07:00:00Z"), .gap))
        #expect(resolve("America/New_York", "2026-03-08", "02:00") == (utc("2026-03-08T07:00:00Z"), .gap))
        #expect(resolve("America/New_York", "2026-03-08", "01:59") == (utc("2026-03-08T06:59:00Z"), .none))
        #expect(resolve("America/New_York", "2026-03-08", "03:00") == (utc("2026-03-08T07:00:00Z"), .none))
        #expect(resolve("America/New_York", "2026-03-08", "06:45") == (utc("2026-03-08T10:45:00Z"), .none))
    }

    @Test func newYorkFallBackRingsAtTheFirstOf2() {
        // 2026-11-01 02:00 EDT becomes 01:00 EST: 01:30 happens at 05:30Z and at 06:30Z.
        #expect(resolve("America/New_York", "2026-11-01", "01:30") == (utc("2026-11-01T05:30:00Z"), .repeated))
        #expect(resolve("America/New_York", "2026-11-01", "00:59") == (utc("2026-11-01T04:59:00Z"), .none))
        #expect(resolve("America/New_York", "2026-11-01", "02:00") == (utc("2026-11-01T07:00:00Z"), .none))
    }

    @Test func berlinTransitions() {
        // 2026-03-29 02:00 CET becomes 03:00 CEST at 01:00Z; 2026-10-25 03:00 CEST becomes 02:00 CET at 01:00Z.
        #expect(resolve("Europe/Berlin", "2026-03-29", "02:30") == (utc("2026-03-29T01:00:00Z"), .gap))
        #expect(resolve("Europe/Berlin", "2026-10-25", "02:30") == (utc("2026-10-25T00:30:00Z"), .repeated))
        #expect(resolve("Europe/Berlin", "2026-10-25", "03:00") == (utc("2026-10-25T02:00:00Z"), .none))
    }

    @Test func lordHoweShiftsByHalfAnHour() {
        // 2026-10-04 02:00 +10:30 becomes 02:30 +11:00 (15:30Z on the 3rd).
        #expect(resolve("Australia/Lord_Howe", "2026-10-04", "02:15") == (utc("2026-10-03T15:30:00Z"), .gap))
        #expect(resolve("Australia/Lord_Howe", "2026-10-04", "02:30") == (utc("2026-10-03T15:30:00Z"), .none))
        // 2026-04-05 02:00 +11:00 becomes 01:30 +10:30: 01:45 happens twice, first at 14:45Z on the 4th.
        #expect(resolve("Australia/Lord_Howe", "2026-04-05", "01:45") == (utc("2026-04-04T14:45:00Z"), .repeated))
        #expect(resolve("Australia/Lord_Howe", "2026-04-05", "01:29") == (utc("2026-04-04T14:29:00Z"), .none))
    }

    @Test func apiaSkippedTheThirtiethOfDecember2011() {
        var resolver = ZoneResolver(zone: zone("Pacific/Apia"))
        let exists = ["2011-12-29", "2011-12-30", "2011-12-31"].map { resolver.exists(date($0)) }
        #expect(exists == [true, false, true])
        // 23:59 on the 29th at -10:00, then 00:00 on the 31st at +14:00.
        let before = resolver.resolve(date("2011-12-29"), time("23:59")).instant
        let after = resolver.resolve(date("2011-12-31"), time("00:00")).instant
        #expect(before == utc("2011-12-30T09:59:00Z"))
        #expect(after == utc("2011-12-30T10:00:00Z"))
    }

    @Test func aZoneWithoutDSTIsPlainArithmetic() {
        for day in ["2026-03-08", "2026-03-29", "2026-11-01", "2028-02-29"] {
            let expected = date(day).dayNumber * 86_400 + 6 * 3600 + 45 * 60 - 9 * 3600
            #expect(resolve("Asia/Tokyo", day, "06:45") == (expected, .none))
        }
    }

    @Test func localTimeRoundTripsAcrossTheYear() {
        var resolver = ZoneResolver(zone: zone("Europe/Berlin"))
        for offset in 0..<366 {
            let day = date("2026-01-01").adding(days: offset)
            let (instant, _) = resolver.resolve(day, time("06:45"))
            #expect(resolver.local(at: instant) == (day, time("06:45")))
        }
    }
}
