import Foundation
import ReveilleProtocol
import ReveilleWifi
import Synchronization
import Testing

/// wpa_supplicant's control socket, played by the test (its protocol as wpa_supplicant 2.10
/// speaks it): the networks it hears, and how a join goes. The real wpa_supplicant, on simulated
/// radios, is the VM bench's (`make vm-smoke`, "wifi:").
final class FakeSupplicant: @unchecked Sendable {
    /// The IEEE 802.11i test vector: passphrase "password" on the network "IEEE".
    static let rightKey = "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e"
    static let scanResults = """
        bssid / frequency / signal level / flags / ssid
        02:00:00:00:01:00\t2412\t-70\t[WPA2-PSK-CCMP][ESS]\tIEEE
        02:00:00:00:02:00\t2437\t-45\t[WPA2-PSK-CCMP][ESS]\tNeighbours
        02:00:00:00:03:00\t2462\t-80\t[ESS]\tCafé

        """
    private let fd: Int32
    private let stop = Mutex(false)
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    struct State {
        var commands: [String] = []
        var networks: [Int: [String: String]] = [:]
        var nextID = 1
        var joined: String?
        /// Each join gets another address, as a new network's router gives.
        var joins = 0
        var listener: (Data, socklen_t)?
    }

    var commands: [String] { state.withLock { $0.commands } }

    init(path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        // Network 0: the one the clock knew before.
        state.withLock { $0.networks[0] = ["ssid": "old"] }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        stop.withLock { $0 = true }
        done.wait()
        close(fd)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stop.withLock({ $0 }) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            var from = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
                }
            }
            guard count > 0 else { continue }
            let address = withUnsafeBytes(of: &from) { Data($0.prefix(Int(length))) }
            let line = String(decoding: buffer[..<count], as: UTF8.self)
            let (reply, events) = answer(line, from: (address, length))
            send(reply, to: (address, length))
            if let listener = state.withLock({ $0.listener }) {
                for event in events { send(event, to: listener) }
            }
        }
        done.signal()
    }

    private func send(_ text: String, to address: (Data, socklen_t)) {
        let bytes = Array(text.utf8)
        address.0.withUnsafeBytes { raw in
            _ = sendto(fd, bytes, bytes.count, 0, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.1)
        }
    }

    private func answer(_ line: String, from: (Data, socklen_t)) -> (String, [String]) {
        state.withLock { state in
            state.commands.append(line)
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "ATTACH":
                state.listener = from
                return ("OK\n", [])
            case "SCAN": return ("OK\n", ["<3>CTRL-EVENT-SCAN-RESULTS "])
            case "SCAN_RESULTS": return (Self.scanResults, [])
            case "STATUS":
                guard let joined = state.joined else { return ("wpa_state=SCANNING\n", []) }
                return ("wpa_state=COMPLETED\nssid=\(joined)\nip_address=192.168.77.\(19 + state.joins)\n", [])
            case "LIST_NETWORKS":
                let rows = state.networks.keys.sorted().map { "\($0)\t\(state.networks[$0]!["ssid"]!)\tany\t" }
                return ((["network id / ssid / bssid / flags"] + rows).joined(separator: "\n") + "\n", [])
            case "ADD_NETWORK":
                let id = state.nextID
                state.nextID += 1
                state.networks[id] = [:]
                return ("\(id)\n", [])
            case "SET_NETWORK" where words.count == 4:
                guard let id = Int(words[1]), state.networks[id] != nil else { return ("FAIL\n", []) }
                let value = words[2] == "ssid" ? String(decoding: Self.bytes(hex: words[3]), as: UTF8.self) : words[3]
                state.networks[id]![words[2]] = value
                return ("OK\n", [])
            case "SELECT_NETWORK":
                guard let id = Int(words[1]), let network = state.networks[id] else { return ("FAIL\n", []) }
                // An access point (the set-up network) is up at once.
                if network["mode"] == "2" {
                    state.joined = nil
                    return ("OK\n", ["<3>AP-ENABLED "])
                }
                let heard = Self.scanResults.contains("\t" + (network["ssid"] ?? "?") + "\n")
                guard heard else {
                    return ("OK\n", Array(repeating: "<3>CTRL-EVENT-NETWORK-NOT-FOUND", count: 3))
                }
                guard network["psk"] == Self.rightKey || (network["key_mgmt"] == "NONE" && network["ssid"] == "Café")
                else {
                    let disabled =
                        #"<3>CTRL-EVENT-SSID-TEMP-DISABLED id=\#(id) ssid="\#(network["ssid"]!)" auth_failures=1 duration=10 reason=WRONG_KEY"#
                    return ("OK\n", ["<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:01:00 reason=15", disabled])
                }
                state.joined = network["ssid"]
                state.joins += 1
                return (
                    "OK\n", ["<3>CTRL-EVENT-CONNECTED - Connection to 02:00:00:00:01:00 completed [id=\(id) id_str=]"]
                )
            case "REMOVE_NETWORK":
                state.networks[Int(words[1]) ?? -1] = nil
                return ("OK\n", [])
            case "ENABLE_NETWORK", "SAVE_CONFIG": return ("OK\n", [])
            default: return ("UNKNOWN COMMAND\n", [])
            }
        }
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}

/// `wifi scan` and `wifi join` through the daemon (hardware.md, "Wi-Fi"), against a played
/// wpa_supplicant: the list, a wrong password, out of reach, joined, the rights, and no password
/// anywhere it could be read.
@Suite struct WifiTests {
    func relay(_ daemon: DaemonHarness, _ command: Command, cap: Role) throws -> Response {
        let client = try daemon.connect()
        try client.sendRaw(Framing.encode(Request(command, cap: cap)))
        let line = try #require(try client.readLine())
        return try JSONDecoder().decode(Response.self, from: Data(line))
    }

    func clockWithWifi(setup: Bool = false) throws -> (DaemonHarness, FakeSupplicant) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-wifi-\(UUID().uuidString.prefix(8))")
        let supplicant = try FakeSupplicant(path: root.appendingPathComponent("run/wpa_supplicant/wlan0").path)
        if setup {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("var/lib/reveille"), withIntermediateDirectories: true)
            FileManager.default.createFile(
                atPath: root.appendingPathComponent("var/lib/reveille/first-setup").path, contents: nil)
        }
        return (try DaemonHarness(root: root), supplicant)
    }

    @Test func theNetworksHeardStrongestFirstWithTheirLocks() throws {
        let (daemon, supplicant) = try clockWithWifi()
        let scan = try daemon.cli("wifi", "scan")
        #expect(scan.status == 0, "\(scan.stderr)")
        let lines = scan.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4 && lines[0].hasPrefix("NETWORK"))
        #expect(lines[1].contains("Neighbours") && lines[1].contains("▮▮▮▮ -45 dBm") && lines[1].hasSuffix("yes"))
        #expect(lines[2].contains("IEEE") && lines[3].contains("Café") && lines[3].hasSuffix("open"))
        #expect(supplicant.commands.prefix(2) == ["ATTACH", "SCAN"])
        let json = try daemon.cli("wifi", "scan", "--json")
        #expect(json.stdout.contains("\"locked\" : true"))
    }

    @Test func aWrongPasswordOutOfReachAndJoinedEachSaidAndTheOldNetworksKept() throws {
        let (daemon, supplicant) = try clockWithWifi()
        let wrong = try daemon.request(.wifiJoin(network: "IEEE", password: "not the password"))
        #expect(wrong.error?.code == .refused)
        #expect(wrong.error?.message == "wrong password for “IEEE”: check it and type it again")
        // The new entry goes and the ones it knew come back; nothing saved.
        #expect(supplicant.commands.suffix(2) == ["REMOVE_NETWORK 1", "ENABLE_NETWORK all"])
        #expect(!supplicant.commands.contains("SAVE_CONFIG"))

        let away = try daemon.request(.wifiJoin(network: "Far away", password: "password"))
        #expect(away.error?.message.hasPrefix("“Far away” is out of reach") == true)

        // The CLI reads the password from standard input, never from its arguments.
        let joined = try daemon.cli(["wifi", "join", "IEEE"], input: "password\n")
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout == "joined “IEEE” (address 192.168.77.20)\n")
        // Only the key, in hex, reached wpa_supplicant: the PBKDF2 of the passphrase and the name.
        #expect(supplicant.commands.contains("SET_NETWORK 3 psk \(FakeSupplicant.rightKey)"))
        #expect(supplicant.commands.contains("SET_NETWORK 3 ssid 49454545"))
        #expect(supplicant.commands.suffix(4) == ["LIST_NETWORKS", "ENABLE_NETWORK all", "SAVE_CONFIG", "STATUS"])
        #expect(!supplicant.commands.joined().contains("password"))

        let open = try daemon.cli("wifi", "join", "Café", "--open")
        #expect(open.status == 0 && open.stdout.hasPrefix("joined “Café”"), "\(open.stderr)")
        #expect(supplicant.commands.contains("SET_NETWORK 4 key_mgmt NONE"))
        // Joined again under the same name: the older entry goes, so one password is kept.
        #expect(try daemon.cli(["wifi", "join", "IEEE"], input: "password\n").status == 0)
        #expect(supplicant.commands.contains("REMOVE_NETWORK 3") && !supplicant.commands.contains("REMOVE_NETWORK 4"))

        // No password in the log, the state or the status.
        let status = try daemon.cli("status", "--json").stdout
        let database = try String(contentsOf: URL(fileURLWithPath: daemon.paths.database), encoding: .isoLatin1)
        for text in [daemon.logText(), status, database] {
            #expect(
                !text.contains("not the password") && !text.contains("password\n")
                    && !text.contains(FakeSupplicant.rightKey))
        }
        #expect(daemon.logText().contains("wifi: joined “IEEE” at 192.168.77.20"))
    }

    @Test func anAdminsOrTheFirstSetUpsAndTheWordsForWhatIsWrong() throws {
        let (daemon, _) = try clockWithWifi()
        let kiosk = try relay(daemon, .wifiScan, cap: .user)
        #expect(
            kiosk.error?.code == .forbidden
                && kiosk.error?.message.hasPrefix("only an admin changes the clock's Wi-Fi") == true)
        for (password, words) in [
            ("short", "at least 8 characters"), (String(repeating: "x", count: 64), "at most 63"),
        ] {
            let typo = try daemon.cli(["wifi", "join", "IEEE"], input: password + "\n")
            #expect(typo.status == 64 && typo.stderr.contains(words), "\(typo.stderr)")
        }
        let none = try daemon.cli(["wifi", "join", "IEEE"], input: "")
        #expect(none.status == 64 && none.stderr.contains("no password given for “IEEE”"))

        let (setup, _) = try clockWithWifi(setup: true)
        #expect(try relay(setup, .wifiScan, cap: .user).wifi?.networks.count == 3)
    }

    @Test func noAdapterOrNoServiceSaidAsSuch() throws {
        let daemon = try DaemonHarness()
        let bare = try daemon.cli("wifi", "scan")
        #expect(bare.status == 1 && bare.stderr == "reveille: \(WifiMessages.noAdapter)\n")
        try FileManager.default.createDirectory(
            at: daemon.root.appendingPathComponent("sys/class/net/wlan0/wireless"), withIntermediateDirectories: true)
        let stopped = try daemon.cli("wifi", "scan")
        #expect(
            stopped.stderr.contains(
                "the Wi-Fi service is not running for wlan0: sudo systemctl enable --now wpa_supplicant@wlan0"))
    }
}

/// A clock with no screen and no network opens its own set-up network; a phone on it joins the
/// household's (hardware.md, "Wi-Fi"). Against the played wpa_supplicant.
@Suite struct SetupNetworkTests {
    func relay(_ daemon: DaemonHarness, _ command: Command, cap: Role = .admin, device: String? = nil) throws
        -> Response
    {
        let client = try daemon.connect()
        try client.sendRaw(Framing.encode(Request(command, cap: cap, device: device)))
        return try JSONDecoder().decode(Response.self, from: Data(try #require(try client.readLine())))
    }

    @Test func noScreenNoNetworkItOpensSaysTheCodeAndAPhoneMovesItToTheHouseholdsNetwork() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-setup-\(UUID().uuidString.prefix(8))")
        let supplicant = try FakeSupplicant(path: root.appendingPathComponent("run/wpa_supplicant/wlan0").path)
        let adapter = root.appendingPathComponent("sys/class/net/wlan0")
        try FileManager.default.createDirectory(
            at: adapter.appendingPathComponent("wireless"), withIntermediateDirectories: true)
        try "02:00:00:00:00:a3\n".write(
            to: adapter.appendingPathComponent("address"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("var/lib/reveille"), withIntermediateDirectories: true)
        FileManager.default.createFile(
            atPath: root.appendingPathComponent("var/lib/reveille/first-setup").path, contents: nil)
        let daemon = try DaemonHarness(moreSettings: "[wifi]\nsetup_network_wait_seconds = 1\n", root: root)

        #expect(daemon.waitFor(10) { (try? daemon.request(.status).status?.setupNetwork) == "Reveille-00A3" })
        #expect(daemon.logText().contains("wifi: the set-up network Reveille-00A3 is open on wlan0"))
        // The voice says how to join it, and the code.
        let said =
            daemon.logText().split(separator: "\n").first { $0.contains("To set up this clock") }.map(String.init) ?? ""
        #expect(said.contains("join the Wi-Fi network Reveille 0 0 A 3 with the code "), "\(said)")
        #expect(said.contains("Then open 10 dot 42 dot 0 dot 1, port 8080, and type the same code."))
        let digits = said.split(separator: "with the code ").last?.prefix { $0 != "." }.filter(\.isNumber) ?? ""
        #expect(digits.count == 8)
        let code = String(digits.prefix(4)) + "-" + String(digits.suffix(4))
        // An access point, WPA2, on channel 6; the networks heard first, kept for the phone.
        for line in ["mode 2", "frequency 2437", "key_mgmt WPA-PSK", "proto RSN", "pairwise CCMP"] {
            #expect(supplicant.commands.contains { $0.hasPrefix("SET_NETWORK 1 ") && $0.hasSuffix(line) }, "\(line)")
        }
        #expect(supplicant.commands.prefix(2) == ["ATTACH", "SCAN"])
        let scans = supplicant.commands.filter { $0 == "SCAN" }.count

        // The phone pairs with the spoken code, as an admin, and sees the list heard before.
        let phone = try #require(try relay(daemon, .webRedeem(code: code), cap: .user).web?.token)
        let heard = try relay(daemon, .wifiScan, device: phone).wifi?.networks.map(\.name)
        #expect(heard == ["Neighbours", "IEEE", "Café"])
        #expect(supplicant.commands.filter { $0 == "SCAN" }.count == scans, "no scan while it is an access point")

        // A wrong password: said aloud, and the set-up network is back.
        let wrong = try relay(daemon, .wifiJoin(network: "IEEE", password: "not the password"), device: phone)
        #expect(wrong.error?.message.hasPrefix("wrong password for “IEEE”") == true)
        #expect(supplicant.commands.suffix(3).last == "SELECT_NETWORK 1")
        #expect(daemon.waitFor(5) { daemon.logText().contains("The set-up network is back.") })
        #expect(try daemon.request(.status).status?.setupNetwork == "Reveille-00A3")

        // The right one: joined, the set-up network removed before wpa_supplicant saves, the address said.
        let joined = try relay(daemon, .wifiJoin(network: "IEEE", password: "password"), device: phone)
        #expect(joined.ok, "\(joined)")
        let removed = try #require(supplicant.commands.firstIndex(of: "REMOVE_NETWORK 1"))
        #expect(removed < (supplicant.commands.lastIndex(of: "SAVE_CONFIG") ?? 0))
        #expect(
            daemon.waitFor(5) { daemon.logText().contains("Joined IEEE. This clock is at 192 dot 168 dot 77 dot ") })
        #expect(try daemon.request(.status).status?.setupNetwork == nil)
    }

    @Test func notWithAScreenOrANetworkOrOnceSetUpOrWhenNever() {
        for (setting, pending, screen, online, adapter, opens) in [
            (SetupNetwork.Setting.auto, true, false, false, true, true),
            (.auto, true, true, false, true, false), (.always, true, true, false, true, true),
            (.auto, false, false, false, true, false), (.auto, true, false, true, true, false),
            (.auto, true, false, false, false, false), (.never, true, false, false, true, false),
        ] {
            #expect(
                SetupNetwork.shouldOpen(
                    setting: setting, setupPending: pending, screen: screen, online: online, adapter: adapter)
                    == opens)
        }
        #expect(SetupNetwork.name(mac: "02:00:00:00:00:a3") == "Reveille-00A3")
        let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        let local = "wlan1\t004DA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
        let out = "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t1024\t00000000\t0\t0\t0\n"
        #expect(!SetupNetwork.hasDefaultRoute(routeTable: header + local), "an access point of its own is no way out")
        #expect(SetupNetwork.hasDefaultRoute(routeTable: header + local + out))
        #expect(!SetupNetwork.hasDefaultRoute(routeTable: ""))
        #expect(SetupNetwork.spokenCode("4276-9142") == "4 2 7 6, 9 1 4 2")
        #expect(SetupNetwork.passphrase(code: "4276-9142") == Array("42769142".utf8))
    }
}

enum WifiMessages {
    static let noAdapter = "no Wi-Fi adapter: this clock has none that works; plug in a network cable"
}
