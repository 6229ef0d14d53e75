import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// The display's backlight as the daemon drives it (hardware.md, "The screen's backlight"), on a
/// backlight folder under --root as /sys/class/backlight has them: the states a night meets.
@Suite struct ScreenBacklightTests {
    /// A daemon whose root has the panel `panel` (0 to 255) lit fully, started at `now`.
    func clock(at now: String, settings: String = "") throws -> (DaemonHarness, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-light-\(UUID().uuidString.prefix(8))")
        let panel = root.appendingPathComponent("sys/class/backlight/panel")
        try FileManager.default.createDirectory(at: panel, withIntermediateDirectories: true)
        try "255\n".write(to: panel.appendingPathComponent("max_brightness"), atomically: true, encoding: .utf8)
        try "255\n".write(to: panel.appendingPathComponent("brightness"), atomically: true, encoding: .utf8)
        let daemon = try DaemonHarness(now: instant(now), moreSettings: settings, root: root)
        return (daemon, panel.appendingPathComponent("brightness"))
    }

    func brightness(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    /// The kiosk's page says what it shows: relayed with the household's rights and no device.
    func pageShows(_ daemon: DaemonHarness, _ light: ScreenLight, device: String? = nil) throws -> Response {
        let client = try daemon.connect()
        try client.sendRaw(Framing.encode(Request(.screenLight(shows: light), cap: .user, device: device)))
        return try JSONDecoder().decode(Response.self, from: Data(try #require(try client.readLine())))
    }

    @Test func aRebootAtNightIsDimThePageDarkensItARingIsFullAndNightDuringARingWaits() throws {
        let (daemon, file) = try clock(at: "2026-12-08 23:10:00")
        // No page yet: the hour says night (15% of 255).
        #expect(daemon.waitFor(3) { brightness(file) == "38" }, "\(brightness(file))")
        #expect(try daemon.cli("status").stdout.contains("backlight: panel: night, 38 of 255"))
        #expect(try daemon.request(.status).status?.night == true)
        // The page's black screen after a quiet minute: off.
        #expect(try pageShows(daemon, .dark).ok)
        #expect(brightness(file) == "0")
        // A ring while dark: full, whatever the page said.
        #expect(try daemon.cli("alarm", "add", "--in", "1s").status == 0)
        #expect(daemon.waitFor(10) { brightness(file) == "255" })
        // Night mode begins during the ring (the page says so): still full until it is over.
        #expect(try pageShows(daemon, .night).ok)
        #expect(brightness(file) == "255")
        #expect(try daemon.dismissByMath().status == 0)
        #expect(daemon.waitFor(5) { brightness(file) == "38" })
        // A touch in the day's mode: day brightness.
        #expect(try pageShows(daemon, .day).ok)
        #expect(brightness(file) == "255")
        // Only the clock's own screen: a paired phone is refused, and nothing changes.
        let phone = try pageShows(daemon, .dark, device: String(repeating: "a", count: 64))
        #expect(phone.error?.code == .forbidden)
        #expect(brightness(file) == "255")
    }

    @Test func theLevelsOfReveilleTomlAndNoneLeavesItAlone() throws {
        let (daemon, file) = try clock(
            at: "2026-12-08 12:00:00", settings: "[screen]\nday_percent = 60\nnight_percent = 0\n")
        #expect(daemon.waitFor(3) { brightness(file) == "153" })
        #expect(try daemon.request(.status).status?.night == false)
        #expect(try pageShows(daemon, .night).ok)
        #expect(brightness(file) == "0")

        let (alone, untouched) = try clock(at: "2026-12-08 23:00:00", settings: "[screen]\nbacklight = \"none\"\n")
        #expect(try pageShows(alone, .dark).ok)
        #expect(brightness(untouched) == "255")
        #expect(try alone.request(.status).status?.backlight == nil)
    }
}
