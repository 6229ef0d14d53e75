import ReveilleProtocol
import Testing

@testable import ReveilleWeb

/// reveille-web's decisions, without HTTP: who a browser is, what it may relay, CSRF, pairing limits.
@Suite struct WebAccessTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func aBrowserIsTheKioskAPairedDeviceOrAStranger() {
        #expect(WebClient(remoteIsLoopback: true, token: nil) == .loopback)
        #expect(WebClient(remoteIsLoopback: false, token: nil) == .stranger)
        #expect(WebClient(remoteIsLoopback: false, token: Self.token) == .paired(token: Self.token))
        // A cookie that is not a token is ignored, not passed on.
        #expect(WebClient(remoteIsLoopback: false, token: "1; DROP TABLE") == .stranger)
        #expect(WebClient(remoteIsLoopback: false, token: String(repeating: "AB", count: 32)) == .stranger)
        #expect(WebClient(remoteIsLoopback: true, token: "") == .loopback)
    }

    @Test func relayedRequestsCarryTheBrowsersRights() {
        #expect(WebClient.loopback.relay(.snooze) == Request(.snooze, cap: .user))
        #expect(WebClient.paired(token: Self.token).relay(.status) == Request(.status, cap: .admin, device: Self.token))
        #expect(WebClient.stranger.relay(.status) == nil)
    }

    @Test func thePageRelaysNeitherPairingNorFollowingNorRun() {
        #expect(RelayPolicy.allows(.snooze))
        #expect(RelayPolicy.allows(.overrideAdd(alarmID: nil, date: "2026-12-01", change: .off)))
        #expect(RelayPolicy.allows(.tagAdd(label: "x", uid: "04AABB", timeoutSeconds: 0)))
        #expect(!RelayPolicy.allows(.tagAdd(label: "x", uid: nil, timeoutSeconds: 30)))
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

    @Test func pairingAttemptsAreLimitedPerAddressAndInAll() {
        var limiter = PairingLimiter(perAddress: 3, total: 5, windowSeconds: 600)
        for second in 0..<3 { #expect(limiter.attempt(from: "10.0.0.7", at: Double(second)) == nil) }
        #expect(limiter.attempt(from: "10.0.0.7", at: 10) == 590)
        // Another device is still heard, until the total is reached.
        #expect(limiter.attempt(from: "10.0.0.8", at: 11) == nil)
        #expect(limiter.attempt(from: "10.0.0.9", at: 12) == nil)
        #expect(limiter.attempt(from: "10.0.0.10", at: 13) == 587)
        // The window slides.
        #expect(limiter.attempt(from: "10.0.0.7", at: 601) == nil)
    }
}
