import FoundationEssentials
import Glibc
import ReveilleConfig
import ReveilleProtocol
import ReveilleSystem
import Testing

@testable import ReveilleMQTT

/// The household's signed messages: Ed25519 through libgcrypt, the codes a person pins, and which
/// messages a hub and a member take, with a broker that lets anyone publish anything.
extension HouseholdTrust {
    /// At a clock well past the tests' small numbers.
    mutating func open(topic: String, payload: [UInt8]) -> Verdict {
        open(topic: topic, payload: payload, wallSeconds: 1_000)
    }
}

@Suite struct HouseholdTrustTests {
    static let hubKey = try! HouseholdKey.generate()
    static let laptopKey = try! HouseholdKey.generate()
    static let strangerKey = try! HouseholdKey.generate()

    static func topics(hub: Bool, user: String) -> BridgeTopics {
        BridgeTopics(
            base: nil, discoveryPrefix: "homeassistant", host: user, household: "smiths", username: user, hub: hub)
    }

    static let counts = #"{"day":"2026-11-28","usage":[{"app":"minecraft","seconds":290,"user":"lea"}]}"#
    static let usageLaptop = "reveille-household/smiths/usage/laptop"
    static let policy = "reveille-household/smiths/hub/policy"
    static let machinesTopic = "reveille-household/smiths/hub/machines"

    static func sealed(_ topic: String, _ body: String, n: Int = 100, by key: HouseholdKey) -> [UInt8] {
        Array(HouseholdSeal.seal(topic: topic, body: body, n: n, key: key).utf8)
    }

    static var hubList: String {
        CanonicalJSON.text(HubMachines(hub: "clock", machines: ["clock": hubKey.code, "laptop": laptopKey.code]))!
    }

    @Test func aSignatureVerifiesForItsKeyAndMessageOnly() throws {
        let key = Self.hubKey
        let message = Array("the household's policy".utf8)
        let signature = key.sign(message)
        #expect(signature.count == 64)
        #expect(HouseholdKey.verify(publicKey: key.publicKey, message: message, signature: signature))
        #expect(!HouseholdKey.verify(publicKey: Self.laptopKey.publicKey, message: message, signature: signature))
        var changed = message
        changed[0] ^= 1
        #expect(!HouseholdKey.verify(publicKey: key.publicKey, message: changed, signature: signature))
        var bent = signature
        bent[40] ^= 0x80
        #expect(!HouseholdKey.verify(publicKey: key.publicKey, message: message, signature: bent))
        #expect(!HouseholdKey.verify(publicKey: key.publicKey, message: message, signature: []))
    }

    @Test func aCodeIsSixteenCharactersAPersonCanTypeInAnySpelling() throws {
        let code = Self.hubKey.code
        #expect(code.count == 19 && code.split(separator: "-").count == 4)
        #expect(code != Self.laptopKey.code)
        #expect(HouseholdCode.normalized(code) == code)
        #expect(HouseholdCode.normalized(code.lowercased().replacingOccurrences(of: "-", with: " ")) == code)
        #expect(HouseholdCode.normalized("0000-1111-2222-3331") == HouseholdCode.normalized("oooo iiii 2222 333l"))
        for bad in ["", "7KQ2-M9XC-40TF", "7KQ2-M9XC-40TF-HZ3D-1", "7KQ2-M9XC-40TF-HZ3U", "7KQ2/M9XC/40TF/HZ3D"] {
            #expect(HouseholdCode.normalized(bad) == nil, "\(bad) was read as a code")
        }
    }

    @Test func theKeyFileIsMadeOnceReadableByItsUserAloneAndADamagedOneIsNamed() throws {
        let folder = "/tmp/reveille-household-key-\(getpid())"
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state/household.key"
        let (made, isNew) = try HouseholdKey.loadOrMake(path)
        #expect(isNew)
        let (again, newAgain) = try HouseholdKey.loadOrMake(path)
        #expect(!newAgain && again == made)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        try RegularFile.replace(path, with: [1, 2, 3], mode: 0o600)
        #expect(throws: BridgeError.self) { try HouseholdKey.loadOrMake(path) }
        do {
            _ = try HouseholdKey.load(path)
        } catch {
            #expect(error.description.contains("damaged") && error.description.contains("remove it"))
        }
    }

    @Test func theHubTakesTheCountsOfTheMachinesItListsSignedByTheirKeysOnly() throws {
        var trust = HouseholdTrust(
            topics: Self.topics(hub: true, user: "clock"), hubCode: nil,
            machines: ["clock": Self.hubKey.code, "laptop": Self.laptopKey.code])
        let body = Array(Self.counts.utf8)
        #expect(trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, by: Self.laptopKey)) == .body(body, n: 100))
        // Unsigned, as every message was before: dropped.
        guard case .drop(let unsigned) = trust.open(topic: Self.usageLaptop, payload: body) else {
            Issue.record("an unsigned count was taken")
            return
        }
        #expect(unsigned.contains("not signed"))
        // Signed by another key, or by the hub's own key for the laptop: dropped.
        for key in [Self.strangerKey, Self.hubKey] {
            guard case .drop(let why) = trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, n: 200, by: key)) else {
                Issue.record("counts signed by another key were taken")
                return
            }
            #expect(why.contains("not by laptop's listed key \(Self.laptopKey.code)"))
        }
        // The laptop's genuine message moved to another machine's topic does not verify.
        let moved = "reveille-household/smiths/usage/tablet"
        guard case .drop(let movedWhy) = trust.open(topic: moved, payload: Self.sealed(Self.usageLaptop, Self.counts, by: Self.laptopKey))
        else {
            Issue.record("a moved message was taken")
            return
        }
        #expect(movedWhy.contains("does not verify"))
        // A machine no one listed, however well signed: dropped (no filler reaches the table).
        for index in 0..<40 {
            let topic = "reveille-household/smiths/usage/filler\(index)"
            guard case .drop(let why) = trust.open(topic: topic, payload: Self.sealed(topic, Self.counts, by: Self.strangerKey)) else {
                Issue.record("a filler machine's counts were taken")
                return
            }
            #expect(why.contains("does not list"))
        }
        // Its own messages back, and the hub's topics, are its own.
        #expect(trust.open(topic: "reveille-household/smiths/usage/clock", payload: body) == .echo)
        #expect(trust.open(topic: Self.policy, payload: body) == .echo)
        #expect(trust.open(topic: "reveille/clock/snooze/press", payload: Array("PRESS".utf8)) == .notHousehold)
    }

    @Test func aMemberTakesWhatThePinnedHubSignedAndTheCountsOfTheMachinesItLists() throws {
        var trust = HouseholdTrust(
            topics: Self.topics(hub: false, user: "tablet"), hubCode: Self.hubKey.code, machines: [:])
        // Before the hub's list, no machine's counts.
        guard case .drop = trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, by: Self.laptopKey))
        else {
            Issue.record("counts were taken before the hub listed anyone")
            return
        }
        // A forged list (another key) is dropped; the hub's is taken, and says it changed.
        let forgedList = CanonicalJSON.text(HubMachines(hub: "clock", machines: ["evil": Self.strangerKey.code]))!
        guard case .drop(let why) = trust.open(topic: Self.machinesTopic, payload: Self.sealed(Self.machinesTopic, forgedList, by: Self.strangerKey))
        else {
            Issue.record("a forged list of machines was taken")
            return
        }
        #expect(why.contains("not by the hub's pinned key"))
        #expect(trust.open(topic: Self.machinesTopic, payload: Self.sealed(Self.machinesTopic, Self.hubList, by: Self.hubKey)) == .machines(changed: true))
        #expect(trust.open(topic: Self.machinesTopic, payload: Self.sealed(Self.machinesTopic, Self.hubList, n: 101, by: Self.hubKey)) == .machines(changed: false))
        #expect(trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, by: Self.laptopKey)) == .body(Array(Self.counts.utf8), n: 100))

        // The hub's policy: an empty one forged, unsigned or by another key, lifts nothing.
        let empty = #"{"hub":"clock","policy":""}"#
        for payload in [Array(empty.utf8), Self.sealed(Self.policy, empty, n: 500, by: Self.strangerKey), Self.sealed(Self.policy, empty, n: 500, by: Self.laptopKey)] {
            guard case .drop = trust.open(topic: Self.policy, payload: payload) else {
                Issue.record("a forged policy was taken")
                return
            }
        }
        let real = #"{"hub":"clock","policy":"[[app]]\nname = \"minecraft\"\n"}"#
        #expect(trust.open(topic: Self.policy, payload: Self.sealed(Self.policy, real, n: 300, by: Self.hubKey)) == .body(Array(real.utf8), n: 300))
        trust.took(topic: Self.policy, n: 300)
        // The same message again (the broker hands it back on a new subscription, or a replay of
        // the newest) is a repeat; an older one replayed is dropped, genuine as it is.
        #expect(trust.open(topic: Self.policy, payload: Self.sealed(Self.policy, real, n: 300, by: Self.hubKey)) == .repeated)
        guard case .drop(let replay) = trust.open(topic: Self.policy, payload: Self.sealed(Self.policy, empty, n: 299, by: Self.hubKey)) else {
            Issue.record("an older policy replayed was taken")
            return
        }
        #expect(replay.contains("a replay"))
        #expect(trust.seen[Self.policy] == 300)
        // What it kept survives (the loop writes `seen`): a new trust with it still refuses the replay.
        var restarted = HouseholdTrust(
            topics: Self.topics(hub: false, user: "tablet"), hubCode: Self.hubKey.code, machines: [:], seen: trust.seen)
        guard case .drop = restarted.open(topic: Self.policy, payload: Self.sealed(Self.policy, empty, n: 299, by: Self.hubKey)) else {
            Issue.record("a replay was taken after a restart")
            return
        }
    }

    @Test func aMemberWithNoHubKeyTakesNothingAndSaysHowToPinIt() throws {
        var trust = HouseholdTrust(topics: Self.topics(hub: false, user: "tablet"), hubCode: nil, machines: [:])
        guard case .drop(let why) = trust.open(topic: Self.policy, payload: Self.sealed(Self.policy, "{}", by: Self.hubKey)) else {
            Issue.record("a hub's message was taken with no key pinned")
            return
        }
        #expect(why.contains("hub_key") && why.contains("--household-key"))
    }

    @Test func aListOfMachinesMustBeNamesAndCodesAndAtMost32() throws {
        var trust = HouseholdTrust(topics: Self.topics(hub: false, user: "tablet"), hubCode: Self.hubKey.code, machines: [:])
        let many = Dictionary(uniqueKeysWithValues: (0..<33).map { ("m\($0)", Self.laptopKey.code) })
        for list in [
            CanonicalJSON.text(HubMachines(hub: "clock", machines: many))!,
            CanonicalJSON.text(HubMachines(hub: "clock", machines: ["a/b": Self.laptopKey.code]))!,
            CanonicalJSON.text(HubMachines(hub: "clock", machines: ["laptop": "nonsense"]))!, "[]",
        ] {
            guard case .drop = trust.open(topic: Self.machinesTopic, payload: Self.sealed(Self.machinesTopic, list, n: 1, by: Self.hubKey)) else {
                Issue.record("a bad list was taken: \(list.prefix(60))")
                return
            }
        }
        #expect(trust.machines.isEmpty)
    }

    /// A replay flood on a broker with no ACL: not one replay of the newest or of an older message
    /// comes through (so none can spend the rate limit's tokens), and the hub's next change does.
    @Test func aReplayOfTheNewestIsARepeatAndTheHubsNextChangeIsTakenDuringAFlood() throws {
        var trust = HouseholdTrust(
            topics: Self.topics(hub: false, user: "tablet"), hubCode: Self.hubKey.code, machines: [:])
        #expect(trust.open(topic: Self.machinesTopic, payload: Self.sealed(Self.machinesTopic, Self.hubList, by: Self.hubKey)) == .machines(changed: true))
        let sixty = #"{"hub":"clock","policy":"limit 60"}"#
        let ten = #"{"hub":"clock","policy":"limit 10"}"#
        let counts = Self.sealed(Self.usageLaptop, Self.counts, n: 400, by: Self.laptopKey)
        let old = Self.sealed(Self.policy, sixty, n: 300, by: Self.hubKey)
        #expect(trust.open(topic: Self.policy, payload: old) == .body(Array(sixty.utf8), n: 300))
        trust.took(topic: Self.policy, n: 300)
        #expect(trust.open(topic: Self.usageLaptop, payload: counts) == .body(Array(Self.counts.utf8), n: 400))
        trust.took(topic: Self.usageLaptop, n: 400)
        for _ in 0..<50 {
            #expect(trust.open(topic: Self.usageLaptop, payload: counts) == .repeated)
            #expect(trust.open(topic: Self.policy, payload: old) == .repeated)
        }
        let change = Self.sealed(Self.policy, ten, n: 301, by: Self.hubKey)
        #expect(trust.open(topic: Self.policy, payload: change) == .body(Array(ten.utf8), n: 301))
        // Not passed on yet (the loop held it, or the daemon was away): not taken, so the same
        // message handed back later still is.
        #expect(trust.seen[Self.policy] == 300)
        #expect(trust.open(topic: Self.policy, payload: change) == .body(Array(ten.utf8), n: 301))
        trust.took(topic: Self.policy, n: 301)
        guard case .drop(let why) = trust.open(topic: Self.policy, payload: old) else {
            Issue.record("the old policy was taken after the change")
            return
        }
        #expect(why.contains("a replay"))
        // A daemon that restarted gets the newest of each once more, and still no older one.
        trust.takeNewestAgain()
        #expect(trust.open(topic: Self.policy, payload: change) == .body(Array(ten.utf8), n: 301))
        trust.took(topic: Self.policy, n: 301)
        #expect(trust.open(topic: Self.policy, payload: change) == .repeated)
    }

    /// A machine whose clock was a year ahead once: its numbers are held, never taken, so its true
    /// counts are taken as soon as its clock is right; and its own numbers come back to its clock.
    @Test func aNumberFromAClockAYearAheadLocksNothingOut() throws {
        let now = 1_800_000_000
        let year = 365 * 86_400
        var trust = HouseholdTrust(
            topics: Self.topics(hub: true, user: "clock"), hubCode: nil,
            machines: ["clock": Self.hubKey.code, "laptop": Self.laptopKey.code])
        var laptop = HouseholdNumbers()
        let wrong = laptop.next(wallSeconds: now + year)
        guard case .ahead(let why) = trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, n: wrong, by: Self.laptopKey), wallSeconds: now) else {
            Issue.record("a count numbered a year ahead was taken")
            return
        }
        #expect(why.contains("ahead of this machine's clock"))
        #expect(trust.seen[Self.usageLaptop] == nil)
        // Its clock is put right: its next number is its clock's again, and that is taken.
        let right = laptop.next(wallSeconds: now + 60)
        #expect(right == now + 60)
        #expect(trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, n: right, by: Self.laptopKey), wallSeconds: now + 60) == .body(Array(Self.counts.utf8), n: right))
        // A few minutes ahead (clocks that disagree a little) is taken.
        #expect(trust.open(topic: Self.usageLaptop, payload: Self.sealed(Self.usageLaptop, Self.counts, n: now + 300, by: Self.laptopKey), wallSeconds: now) == .body(Array(Self.counts.utf8), n: now + 300))
        // Numbers kept on disk from such a clock are brought back to this one's; sane ones stay.
        let kept = HouseholdTrust.sane([Self.policy: now + year, Self.machinesTopic: now - 5], wallSeconds: now)
        #expect(kept == [Self.policy: now, Self.machinesTopic: now - 5])
    }

    @Test func numbersOnlyGoUpEvenWhenTheClockGoesBack() {
        var numbers = HouseholdNumbers(last: 0)
        #expect(numbers.next(wallSeconds: 1000) == 1000)
        #expect(numbers.next(wallSeconds: 1000) == 1001)
        #expect(numbers.next(wallSeconds: 500) == 1002)
        #expect(numbers.next(wallSeconds: 2000) == 2000)
    }

    @Test func theHubPublishesItsListAndOnlyItsOwnHouseholdTopicsAreSigned() {
        let topics = Self.topics(hub: true, user: "clock")
        #expect(topics.isSignedHousehold("reveille-household/smiths/usage/clock"))
        #expect(topics.isSignedHousehold(Self.policy) && topics.isSignedHousehold(Self.machinesTopic))
        #expect(!topics.isSignedHousehold(Self.usageLaptop))
        #expect(!topics.isSignedHousehold("reveille/clock/ringing"))
        let member = Self.topics(hub: false, user: "laptop")
        #expect(member.isSignedHousehold(Self.usageLaptop) && !member.isSignedHousehold(Self.policy))
    }
}
