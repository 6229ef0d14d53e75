import ReveilleCore
import Testing

/// When the card image's unattended upgrades may run (hardware.md, "Updates"): never during a
/// ring, a snooze or a sunrise, nor within the hour before the next ring.
struct UpgradeWindowTests {
    let now = 1_800_000_000

    @Test func duringARingOrASnoozeOrASunriseTheyWait() {
        #expect(UpgradeWindow.refusal(now: now, nextRing: nil, ringing: true)?.hasPrefix("an alarm is ringing") == true)
        #expect(UpgradeWindow.refusal(now: now, nextRing: now + 86_400, ringing: true) != nil)
    }

    @Test func withinTheHourBeforeTheNextRingTheyWait() {
        #expect(
            UpgradeWindow.refusal(now: now, nextRing: now + 30 * 60, ringing: false)
                == "the next alarm rings in 30 minutes: updates wait until an hour before none")
        #expect(UpgradeWindow.refusal(now: now, nextRing: now + 1, ringing: false)?.contains("in 1 minute:") == true)
        #expect(UpgradeWindow.refusal(now: now, nextRing: now + 3599, ringing: false) != nil)
    }

    @Test func otherwiseTheyRun() {
        #expect(UpgradeWindow.refusal(now: now, nextRing: nil, ringing: false) == nil)
        #expect(UpgradeWindow.refusal(now: now, nextRing: now + 3600, ringing: false) == nil)
        // A ring time already past (a clock that stepped) does not hold them back.
        #expect(UpgradeWindow.refusal(now: now, nextRing: now - 60, ringing: false) == nil)
    }
}
