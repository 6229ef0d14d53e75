import ReveilleCore
import Testing

/// The screen's backlight across the states a night meets (hardware.md, "The screen's backlight").
struct BacklightTests {
    @Test func aRingOrAreYouUpIsFullWhateverThePageSays() {
        for page in [nil] + ScreenLight.allCases {
            for hour in [3, 12, 22] {
                #expect(Backlight.level(page: page, needsSleeper: true, hour: hour) == .full)
            }
        }
    }

    @Test func otherwiseThePagesStateAndWithNoPageTheHour() {
        #expect(Backlight.level(page: .day, needsSleeper: false, hour: 23) == .day)
        #expect(Backlight.level(page: .night, needsSleeper: false, hour: 12) == .night)
        #expect(Backlight.level(page: .dark, needsSleeper: false, hour: 2) == .off)
        // A reboot at night: no page yet, so the hour: dim, never dark, never full.
        #expect(Backlight.level(page: nil, needsSleeper: false, hour: 2) == .night)
        #expect(Backlight.level(page: nil, needsSleeper: false, hour: 21) == .night)
        #expect(Backlight.level(page: nil, needsSleeper: false, hour: 7) == .day)
        #expect(Backlight.level(page: nil, needsSleeper: false, hour: 20) == .day)
    }

    @Test func brightnessOfTheDevicesScale() {
        #expect(Backlight.brightness(.full, maximum: 255, dayPercent: 80, nightPercent: 10) == 255)
        #expect(Backlight.brightness(.day, maximum: 255, dayPercent: 80, nightPercent: 10) == 204)
        #expect(Backlight.brightness(.night, maximum: 255, dayPercent: 80, nightPercent: 10) == 26)
        #expect(Backlight.brightness(.off, maximum: 255, dayPercent: 80, nightPercent: 10) == 0)
        // A tiny scale still lights at 1%; 0% at night is off.
        #expect(Backlight.brightness(.night, maximum: 7, dayPercent: 100, nightPercent: 1) == 1)
        #expect(Backlight.brightness(.night, maximum: 7, dayPercent: 100, nightPercent: 0) == 0)
    }
}
