import ReveilleCore
import Testing

/// The first boot's set-up rule (hardware.md, "The image"): a zone by tzdata's spelling only, and once.
struct FirstSetupTests {
    @Test(arguments: ["Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+5", "America/Port-au-Prince"])
    func tzdataNamesAreZones(_ name: String) {
        #expect(FirstSetup.isZoneName(name))
    }

    @Test(arguments: [
        "", "../etc/passwd", "/etc/localtime", "Europe//Berlin", "Europe/", ".hidden", "Europe/.x", "-rf",
        "Europe/Berlin\n", "Europe/Berlin;rm", "Europe/Berl in", "Ëurope/Berlin", String(repeating: "A", count: 65),
    ])
    func anythingElseIsNot(_ name: String) {
        #expect(!FirstSetup.isZoneName(name))
        #expect(FirstSetup.refusal(pending: true, zone: name, zoneExists: true) != nil)
    }

    @Test func itIsAskedOnceAndNeedsAZoneOnThisClock() {
        #expect(FirstSetup.refusal(pending: true, zone: "Europe/Berlin", zoneExists: true) == nil)
        #expect(FirstSetup.refusal(pending: true, zone: "Europe/Nowhere", zoneExists: false)?.contains("not one this clock knows") == true)
        #expect(FirstSetup.refusal(pending: false, zone: "Europe/Berlin", zoneExists: true)?.contains("set up already") == true)
    }
}
