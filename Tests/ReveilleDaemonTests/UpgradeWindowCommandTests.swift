import Foundation
import Testing

@testable import ReveilleCLI

/// `reveille upgrade-window` and doctor's "updates" line (hardware.md, "Updates"): what the card
/// image's unattended upgrades ask before they run, against a real daemon.
@Suite struct UpgradeWindowCommandTests {
    @Test func updatesWaitNearARingAndDuringOneAndRunOtherwise() throws {
        let daemon = try DaemonHarness(now: instant("2026-12-08 02:00:00"))
        let free = try daemon.cli("upgrade-window")
        #expect(free.status == 0 && free.stdout == "updates may run: no alarm ahead\n", "\(free)")
        #expect(try daemon.cli("alarm", "add", "02:30", "--days", "daily").status == 0)
        let near = try daemon.cli("upgrade-window")
        #expect(near.status == 1)
        #expect(
            near.stdout == "updates wait: the next alarm rings in 30 minutes: updates wait until an hour before none\n")
        try daemon.advance(by: 31 * 60)
        #expect(try daemon.waitFor { try daemon.session()?.state == .ringing })
        let ringing = try daemon.cli("upgrade-window")
        #expect(ringing.status == 1 && ringing.stdout.hasPrefix("updates wait: an alarm is ringing"), "\(ringing)")
        #expect(try daemon.dismissByMath().status == 0)
        let after = try daemon.cli("upgrade-window")
        #expect(after.status == 0 && after.stdout.contains("the next alarm rings"), "\(after)")
        // No daemon: nothing rings, so they may run.
        daemon.stop()
        let gone = try daemon.cli("upgrade-window")
        #expect(gone.status == 0 && gone.stdout.hasPrefix("updates may run: reveilled does not answer"))
    }

    @Test func doctorSaysWhenTheyLastRan() {
        let now = 1_800_000_000
        #expect(Doctor.updates(installed: false, lastRun: nil, now: now) == nil)
        #expect(Doctor.updates(installed: true, lastRun: nil, now: now)?.level == .note)
        let recent = Doctor.updates(installed: true, lastRun: now - 2 * 86_400 - 5, now: now)
        #expect(
            recent?.level == .ok && recent?.detail.hasPrefix("security updates last ran 2 days ago (2027-01-") == true)
        let stale = Doctor.updates(installed: true, lastRun: now - 9 * 86_400, now: now)
        #expect(stale?.level == .warning && stale?.fix?.contains("journalctl -u apt-daily-upgrade") == true)
    }
}
