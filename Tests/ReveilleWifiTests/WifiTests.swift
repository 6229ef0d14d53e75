import ReveilleProtocol
import Testing

@testable import ReveilleWifi

/// The Wi-Fi's rules and wpa_supplicant's words, as the set-up screen and `reveille wifi` meet
/// them: every kind of password, every answer wpa_supplicant gives a join.
@Suite struct WifiRulesTests {
    @Test func onlyAnAdminOrTheFirstSetUpChangesTheWifi() {
        for role in [Role.none, .user] {
            #expect(WifiRules.refusal(role: role, setupPending: false)?.contains("only an admin") == true)
            #expect(WifiRules.refusal(role: role, setupPending: true) == nil)
        }
        for role in [Role.admin, .owner] {
            #expect(WifiRules.refusal(role: role, setupPending: false) == nil)
        }
    }

    @Test func passwordsOfEveryKind() throws {
        let open = try WifiRules.credentials(network: "Café", password: nil)
        #expect(open == .init(name: Array("Café".utf8), key: .none))
        #expect(try WifiRules.credentials(network: "Café", password: "").key == .none)
        let phrase = try WifiRules.credentials(network: "Home", password: #"a "quoted" \ one"#)
        #expect(phrase.key == .passphrase(Array(#"a "quoted" \ one"#.utf8)))
        let key = String(repeating: "0f", count: 32)
        #expect(
            try WifiRules.credentials(network: "Home", password: key).key == .key([UInt8](repeating: 0x0f, count: 32)))
        // 64 characters that are not hex: a passphrase is at most 63.
        let notHex = String(repeating: "g", count: 64)
        for (network, password, words) in [
            ("", "password1", "its name is empty"),
            (String(repeating: "n", count: 33), "password1", "at most 32 bytes"),
            ("Home", "short", "at least 8 characters; this one has 5"),
            ("Home", notHex, "at most 63 characters"),
            ("Home", "pässwörd-long", "plain letters"),
            ("Home", "new\nline-password", "plain letters"),
        ] {
            #expect(throws: WifiRules.Problem.self) { try WifiRules.credentials(network: network, password: password) }
            do {
                _ = try WifiRules.credentials(network: network, password: password)
            } catch {
                #expect(error.description.contains(words), "\(network) \(password): \(error)")
            }
        }
    }

    @Test func namesAndKeysGoAsHexNeverAsText() {
        let name = Array("Smith \"home\"\n5G".utf8)
        #expect(SupplicantCommand.setName(id: 3, name: name).line == "SET_NETWORK 3 ssid " + WifiRules.hex(name))
        #expect(!SupplicantCommand.setName(id: 3, name: name).line.contains("\""))
        #expect(SupplicantCommand.setKey(id: 0, key: [0xab, 0x01]).line == "SET_NETWORK 0 psk ab01")
        #expect(SupplicantCommand.addNetwork.succeeded("12\n"))
        #expect(!SupplicantCommand.addNetwork.succeeded("FAIL\n"))
        #expect(SupplicantCommand.scan.succeeded("FAIL-BUSY\n"))
        #expect(!SupplicantCommand.select(id: 1).succeeded("FAIL\n"))
    }
}

@Suite struct SupplicantReadingTests {
    static let results = """
        bssid / frequency / signal level / flags / ssid
        02:00:00:00:01:00\t2412\t-71\t[WPA2-PSK-CCMP][ESS]\tHousehold 5G
        02:00:00:00:02:00\t5180\t-48\t[WPA2-PSK-CCMP][ESS]\tHousehold 5G
        02:00:00:00:03:00\t2437\t-80\t[ESS]\tCafé \\"open\\"
        02:00:00:00:04:00\t2462\t-60\t[WPA2-EAP-CCMP][ESS]\tWork
        02:00:00:00:05:00\t2462\t-40\t[WPA2-PSK-CCMP][ESS]\t\\x00\\x00\\x00
        02:00:00:00:06:00\t2462\t-40\t[WPA2-PSK-CCMP][ESS]\t
        02:00:00:00:07:00\t2412\t-60\t[WEP][ESS]\tOld\\tone
        garbage line
        """

    @Test func strongestFirstOnceEachWithALockAndNoHiddenOnes() {
        let heard = SupplicantReading.networks(scanResults: Self.results, current: "Household 5G")
        #expect(heard.map(\.name) == ["Household 5G", "Old\tone", "Work", "Café \"open\""])
        #expect(heard[0].signal == -48 && heard[0].bars == 4 && heard[0].locked && heard[0].current)
        #expect(heard[1].locked && !heard[1].enterprise && heard[1].bars == 3)
        #expect(heard[2].enterprise && heard[2].locked)
        #expect(!heard[3].locked && heard[3].bars == 1 && !heard[3].current)
        #expect(SupplicantReading.networks(scanResults: Self.results, current: nil, limit: 2).count == 2)
        #expect(SupplicantReading.networks(scanResults: "", current: nil).isEmpty)
    }

    @Test func theNetworkJoinedAndItsAddress() {
        let status =
            "bssid=02:00:00:00:02:00\nssid=Smith \\\"home\\\"\nid=0\nwpa_state=COMPLETED\nip_address=192.168.77.20\n"
        let joined = SupplicantReading.joined(status: status)
        #expect(joined?.network == "Smith \"home\"" && joined?.address == "192.168.77.20")
        #expect(SupplicantReading.joined(status: "wpa_state=SCANNING\n") == nil)
        #expect(SupplicantReading.joined(status: "wpa_state=COMPLETED\nssid=x\n")?.address == nil)
    }

    @Test func theNetworksKeptUnderAName() {
        let list =
            "network id / ssid / bssid / flags\n0\tHome\tany\t[CURRENT]\n1\tCafé\tany\t[DISABLED]\n2\tHome\tany\t\n"
        #expect(SupplicantReading.ids(listNetworks: list, named: Array("Home".utf8)) == [0, 2])
        #expect(SupplicantReading.ids(listNetworks: list, named: Array("Nope".utf8)).isEmpty)
    }

    @Test func escapedNamesComeBackAsTheirBytes() {
        #expect(SupplicantReading.decode(#"a\\b\"c\x41\xzz"#) == Array(#"a\b"cA\xzz"#.utf8))
    }

    @Test func eventsAsTheyArrive() {
        #expect(
            SupplicantEvent(
                message: "<3>CTRL-EVENT-CONNECTED - Connection to 02:00:00:00:01:00 completed [id=4 id_str=]")
                == .connected(id: 4))
        #expect(
            SupplicantEvent(
                message:
                    #"<3>CTRL-EVENT-SSID-TEMP-DISABLED id=2 ssid="x reason=WRONG_KEY" auth_failures=1 duration=10 reason=CONN_FAILED"#
            )
                == .temporarilyDisabled(id: 2, wrongKey: false))
        #expect(
            SupplicantEvent(
                message:
                    #"<3>CTRL-EVENT-SSID-TEMP-DISABLED id=2 ssid="Home" auth_failures=1 duration=10 reason=WRONG_KEY"#)
                == .temporarilyDisabled(id: 2, wrongKey: true))
        #expect(SupplicantEvent(message: "<3>CTRL-EVENT-NETWORK-NOT-FOUND") == .networkNotFound)
        #expect(SupplicantEvent(message: "<3>CTRL-EVENT-SCAN-RESULTS ") == .scanResults)
        #expect(SupplicantEvent(message: "<3>CTRL-EVENT-DISCONNECTED bssid=02:00 reason=3") == .disconnected)
        #expect(SupplicantEvent(message: "<2>Trying to associate with 02:00") == nil)
    }
}

@Suite struct WifiJoiningTests {
    func joining() -> WifiJoining { WifiJoining(network: "Home", id: 3, started: 100) }

    @Test func joinedWhenItsOwnConnectionCompletes() {
        var join = joining()
        #expect(join.heard(.scanResults) == nil)
        #expect(join.heard(.associationRejected) == nil)
        #expect(join.heard(.connected(id: 3)) == .joined)
        #expect(join.deadline == 130)
    }

    @Test func aWrongPasswordOnlyForThisNetwork() {
        var join = joining()
        #expect(join.heard(.temporarilyDisabled(id: 1, wrongKey: true)) == nil)
        #expect(join.heard(.temporarilyDisabled(id: 3, wrongKey: false)) == nil)
        #expect(join.heard(.temporarilyDisabled(id: 3, wrongKey: true)) == .wrongPassword)
    }

    @Test func outOfReachAfterScansThatDoNotHearIt() {
        var join = joining()
        #expect(join.heard(.networkNotFound) == nil)
        #expect(join.timedOut == .outOfReach)
        #expect(join.heard(.networkNotFound) == nil)
        #expect(join.heard(.networkNotFound) == .outOfReach)
        #expect(joining().timedOut == .noAnswer)
    }

    @Test func theWordsAPersonReads() {
        #expect(
            WifiJoining.words(.wrongPassword, network: "Home")
                == "wrong password for “Home”: check it and type it again")
        #expect(WifiJoining.words(.outOfReach, network: "Home").contains("is out of reach"))
        #expect(WifiJoining.words(.noAnswer, network: "Home").contains("30 seconds"))
        #expect(WifiJoining.noAdapter.hasPrefix("no Wi-Fi adapter"))
    }
}
