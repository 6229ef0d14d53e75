import ReveilleProtocol
import Testing

@testable import ReveilleWeb

/// reveille-web's decisions, without HTTP: who a browser is, what it may relay, CSRF, pairing limits.
@Suite struct WebAccessTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func aBrowserIsTheKioskAPairedDeviceOrAStranger() {
        #expect(WebClient(token: nil, isKiosk: true) == .kiosk)
        #expect(WebClient(token: nil, isKiosk: false) == .stranger)
        #expect(WebClient(token: Self.token, isKiosk: false) == .paired(token: Self.token))
        // A cookie that is not a token is ignored, not passed on.
        #expect(WebClient(token: "1; DROP TABLE", isKiosk: false) == .stranger)
        #expect(WebClient(token: String(repeating: "AB", count: 32), isKiosk: false) == .stranger)
        #expect(WebClient(token: "", isKiosk: true) == .kiosk)
    }

    @Test func relayedRequestsCarryTheBrowsersRights() {
        #expect(WebClient.kiosk.relay(.snooze) == Request(.snooze, cap: .user))
        #expect(WebClient.paired(token: Self.token).relay(.status) == Request(.status, cap: .admin, device: Self.token))
        #expect(WebClient.stranger.relay(.status) == nil)
    }

    @Test func thePageRelaysNeitherPairingNorFollowingNorRun() {
        #expect(RelayPolicy.allows(.snooze))
        #expect(RelayPolicy.allows(.overrideAdd(alarmID: nil, date: "2026-12-01", change: .off)))
        #expect(RelayPolicy.allows(.tagAdd(label: "x", uid: "04AABB", timeoutSeconds: 0)))
        // A tag registered by its tap: held at most tagWaitSeconds, on a thread of its own.
        #expect(RelayPolicy.allows(.tagAdd(label: "x", uid: nil, timeoutSeconds: 30)))
        #expect(RelayPolicy.waits(.tagAdd(label: "x", uid: nil, timeoutSeconds: 30)))
        #expect(!RelayPolicy.waits(.tagAdd(label: "x", uid: "04AABB", timeoutSeconds: 0)))
        #expect(!RelayPolicy.allows(.tagAdd(label: "x", uid: nil, timeoutSeconds: 600)))
        #expect(!RelayPolicy.allows(.tagAdd(label: "x", uid: nil, timeoutSeconds: 0)))
        // A calendar by its web address, never a file on the clock's disk; its sounds as an alarm's
        // (the daemon plays only files everyone may read).
        #expect(RelayPolicy.allows(.calendarAdd(name: "school", source: "https://example.org/s.ics")))
        #expect(!RelayPolicy.allows(.calendarAdd(name: "school", source: "/etc/shadow")))
        #expect(!RelayPolicy.allows(.calendarAdd(name: "school", source: "file:///etc/shadow")))
        #expect(
            RelayPolicy.allows(
                .calendarAdd(
                    name: "r", source: "https://example.org/s.ics", purpose: "reminders",
                    sounds: ["5": "/usr/share/sounds/bell.wav"])))
        // A sound heard from the alarm sheet: a few seconds on the configured devices, never a named
        // device (an ALSA name is a program for alsa-lib) nor a long play; it waits for its first frame.
        #expect(
            RelayPolicy.allows(.soundTest(file: "/usr/share/sounds/bell.wav", device: nil, seconds: 5, volume: nil)))
        #expect(RelayPolicy.waits(.soundTest(file: nil, device: nil, seconds: 5, volume: nil)))
        #expect(!RelayPolicy.allows(.soundTest(file: nil, device: "default", seconds: 5, volume: nil)))
        #expect(!RelayPolicy.allows(.soundTest(file: nil, device: nil, seconds: 300, volume: nil)))
        #expect(RelayPolicy.allows(.soundList))
        // A reminder with a sound, as an alarm; never with a command to run.
        var reminder = ReminderSpec()
        reminder.sound = "/usr/share/sounds/bell.wav"
        #expect(RelayPolicy.allows(.reminderAdd(spec: reminder)))
        reminder.unless = "true"
        #expect(!RelayPolicy.allows(.reminderAdd(spec: reminder)))
        #expect(!RelayPolicy.allows(.webPair(role: .admin, name: "x")))
        #expect(!RelayPolicy.allows(.webRedeem(code: "1234-5678")))
        #expect(!RelayPolicy.allows(.watch))
        #expect(!RelayPolicy.allows(.appStart(name: "game")))
    }

    @Test func changesNeedThePagesTokenFromThePagesOrigin() {
        let guardian = CSRFGuard(secret: "s3cret")
        #expect(guardian.refusal(token: "s3cret", origin: nil, host: "127.0.0.1:8080") == nil)
        #expect(guardian.refusal(token: "s3cret", origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080") == nil)
        #expect(guardian.refusal(token: nil, origin: nil, host: "h")?.contains("lacks the page's CSRF token") == true)
        #expect(guardian.refusal(token: "guess", origin: nil, host: "h") != nil)
        #expect(
            guardian.refusal(token: "s3cret", origin: "http://evil.example", host: "clock.local:8080")
                == "this request came from another site (http://evil.example); it is refused")
    }

    @Test func wrongPairingCodesHoldOffTheirAddressOnlyAndRightCodesNeverCount() {
        var limiter = PairingLimiter(perAddress: 3, windowSeconds: 600)
        for second in 0..<3 {
            #expect(limiter.wait(for: "10.0.0.7", at: Double(second)) == nil)
            limiter.wrongCode(from: "10.0.0.7", at: Double(second))
        }
        #expect(limiter.wait(for: "10.0.0.7", at: 10) == 590)
        // Other devices are heard whatever one guesser does: there is no total to exhaust.
        for octet in 8..<40 { #expect(limiter.wait(for: "10.0.0.\(octet)", at: 11) == nil) }
        // All of loopback is one address, and so is an IPv6 /64.
        for octet in 2..<5 { limiter.wrongCode(from: "127.0.0.\(octet)", at: 20) }
        #expect(limiter.wait(for: "127.9.9.9", at: 21) != nil)
        #expect(limiter.wait(for: "::1", at: 21) != nil)
        for host in 1..<4 { limiter.wrongCode(from: "2001:db8:1:2::\(host)", at: 30) }
        #expect(limiter.wait(for: "2001:db8:1:2:aaaa::1", at: 31) != nil)
        #expect(limiter.wait(for: "2001:db8:1:3::1", at: 31) == nil)
        // The window slides.
        #expect(limiter.wait(for: "10.0.0.7", at: 601) == nil)
    }

    @Test func onlyNamesThatCannotBeAnAttackersAreServed() {
        let check = HostCheck(hostName: "clock", extra: ["bedside.home.arpa"])
        for allowed in [
            "127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "192.168.1.20:8080", "clock:8080",
            "clock.local", "clock.local.", "bedside.home.arpa:80",
        ] {
            #expect(check.allows(allowed), "\(allowed)")
        }
        for refused in [
            nil, "", "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example",
            "clock.evil", "999.1.1.1", "[::1", "localhost:80x",
        ] {
            #expect(!check.allows(refused), "\(refused ?? "nil")")
        }
    }
}
