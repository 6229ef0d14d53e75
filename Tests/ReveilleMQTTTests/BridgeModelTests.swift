import Glibc
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleMQTT

/// The bridge's decisions without a broker: the topics, Home Assistant's discovery, the events, and
/// what an inbound message may ask.
@Suite struct BridgeModelTests {
    static let topics = BridgeTopics(base: nil, discoveryPrefix: "homeassistant", host: "kitchen")
    static let model = BridgeModel(topics: topics, host: "kitchen", approvals: false)

    static func status(master: MasterState = .on, session: SessionInfo? = nil) -> StatusInfo {
        var status = StatusInfo(
            version: "0.1.0", uptimeSeconds: 1, timeZone: "Europe/Berlin", now: "2026-11-28 06:00:00",
            nowInstant: 1_795_842_000, master: master, pausedUntil: nil, alarmCount: 2, enabledCount: 1,
            nextRing: RingInfo(
                alarmID: 1, label: "work", date: "2026-11-30", weekday: "Mon", time: "06:45", instant: 1_796_017_500,
                layer: .rule, sourceID: 2),
            role: .admin)
        status.session = session
        return status
    }

    static func session(_ state: SessionState, snoozes: Int = 0) -> SessionInfo {
        SessionInfo(
            id: 7, alarmID: 1, label: "work", state: state, scheduledTime: "06:45", snoozeCount: snoozes, maxSnoozes: 3,
            snoozedUntil: nil, challenge: .math, fellBackToMath: false, howToDismiss: "answer", wrongAnswers: 0,
            dismissedBy: state == .dismissed ? .math : nil, tagOnReader: false)
    }

    static let alarms = [
        AlarmInfo(
            Alarm(id: 1, label: "work", time: LocalTime(hour: 6, minute: 45)!, repeats: .weekly(.weekdays)),
            nextRing: nil),
        AlarmInfo(
            Alarm(
                id: 2, label: "a/b+#ü", time: LocalTime(hour: 9, minute: 0)!, repeats: .weekly(.weekdays),
                enabled: false),
            nextRing: nil),
    ]

    static let snapshot = Snapshot(
        status: status(), alarms: alarms,
        apps: [
            AppStatusInfo(
                name: "minecraft", user: "léa/#", allowed: true, reason: "", usedMinutes: 20, limitMinutes: 60,
                grantMinutes: 0),
            AppStatusInfo(
                name: "tuxpaint", user: "léa/#", allowed: true, reason: "", usedMinutes: 5, limitMinutes: 90,
                grantMinutes: 0),
        ],
        requests: [
            AppRequestInfo(
                id: 3, user: "léa/#", app: "minecraft", minutes: 15, why: "homework", askedAt: "17:00", state: .waiting)
        ])

    @Test func namesAreMadeSafeForTopicsAndCannotMeet() {
        #expect(TopicName.safe("kitchen") == "kitchen")
        for hostile in ["a/b", "a+b", "a#b", "léa", "", "a b", String(repeating: "x", count: 200)] {
            let safe = TopicName.safe(hostile)
            #expect(!safe.isEmpty && safe.count <= 49)
            #expect(safe.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }, "\(safe)")
        }
        // "a/b" and "a+b" both become "a_b", but not the same name.
        #expect(TopicName.safe("a/b") != TopicName.safe("a+b"))
        #expect(TopicName.safe("a/b") == TopicName.safe("a/b"))
        #expect(Self.topics.base == "reveille/kitchen")
        #expect(Self.topics.timeLeft("léa/#").hasPrefix("reveille/kitchen/apps/l_a__-"))
    }

    /// Every key Home Assistant's MQTT discovery documents for each platform used (the common
    /// entity options and the platform's own), and the ones it requires.
    static let common: Set<String> = [
        "name", "unique_id", "device", "availability_topic", "payload_available", "payload_not_available", "icon",
        "json_attributes_topic", "json_attributes_template", "entity_category", "enabled_by_default", "qos",
        "object_id",
        "origin",
    ]
    static let platforms: [String: (allowed: Set<String>, required: Set<String>)] = [
        "sensor": (
            ["state_topic", "value_template", "device_class", "unit_of_measurement", "state_class", "options"],
            ["state_topic"]
        ),
        "binary_sensor": (
            ["state_topic", "value_template", "device_class", "payload_on", "payload_off"], ["state_topic"]
        ),
        "switch": (
            [
                "state_topic", "command_topic", "payload_on", "payload_off", "state_on", "state_off", "value_template",
                "optimistic", "retain",
            ],
            ["command_topic"]
        ),
        "button": (["command_topic", "payload_press", "device_class", "retain"], ["command_topic"]),
        "event": (["state_topic", "event_types", "device_class", "value_template"], ["state_topic", "event_types"]),
    ]
    static let deviceClasses: [String: Set<String>] = [
        "sensor": ["timestamp", "enum", "duration"], "binary_sensor": ["sound"],
    ]

    @Test func discoveryFollowsHomeAssistantsSchemaForEachPlatform() throws {
        let configs = Self.model.discovery(Self.snapshot)
        var seenUniqueIDs = Set<String>()
        for (topic, config) in configs {
            let parts = topic.split(separator: "/")
            #expect(
                parts.count == 5 && parts[0] == "homeassistant" && parts[2] == "reveille_kitchen"
                    && parts[4] == "config")
            let platform = String(parts[1])
            let schema = try #require(Self.platforms[platform], "\(platform) is not a platform the test knows")
            guard case .object(let members) = config else {
                Issue.record("\(topic): not an object")
                continue
            }
            let keys = Set(members.keys)
            #expect(keys.subtracting(Self.common.union(schema.allowed)).isEmpty, "\(topic): \(keys)")
            #expect(schema.required.isSubset(of: keys), "\(topic) lacks \(schema.required.subtracting(keys))")
            #expect(parts[3].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
            if case .string(let id) = members["unique_id"] { #expect(seenUniqueIDs.insert(id).inserted) }
            if case .string(let deviceClass) = members["device_class"] {
                #expect(Self.deviceClasses[platform]?.contains(deviceClass) == true, "\(deviceClass)")
            }
            #expect(config["device"]?["name"] == "Reveille (kitchen)")
            #expect(config.text.utf8.count < 1024)
        }
        // One device: the next ring, ringing, the ring state, the master switch, each alarm's
        // switch, snooze, the events, and each limited user's time left and requests.
        #expect(configs.count == 6 + 2 + 2)
        #expect(
            configs["homeassistant/event/reveille_kitchen/event/config"]?["event_types"]?.text.contains(
                "wake-check-failed") == true)
        #expect(configs["homeassistant/switch/reveille_kitchen/alarm_2/config"]?["name"] == "Alarm 2 a/b+#ü")
    }

    /// The device links to the clock's page when other devices reach it, and names a room when
    /// one is set; neither when not.
    @Test func theDeviceLinksToThePageAndSuggestsARoom() {
        let plain = Self.model.discovery(Self.snapshot)["homeassistant/switch/reveille_kitchen/master/config"]
        #expect(plain?["device"]?["configuration_url"] == nil && plain?["device"]?["suggested_area"] == nil)
        let model = BridgeModel(
            topics: Self.topics, host: "kitchen", approvals: false, pageURL: "http://kitchen.local:8080/",
            area: "Bedroom")
        for (_, config) in model.discovery(Self.snapshot) {
            #expect(config["device"]?["configuration_url"] == "http://kitchen.local:8080/")
            #expect(config["device"]?["suggested_area"] == "Bedroom")
        }
    }

    @Test func theStateOfTheClockAsRetainedTopics() {
        let state = Self.model.retained(Self.snapshot)
        #expect(
            state["reveille/kitchen/next_ring"]
                == #"{"alarm":1,"at":"2026-11-30T05:45:00+00:00","decided_by":"by weekly rule #2","label":"work","layer":"rule"}"#
        )
        #expect(state["reveille/kitchen/ringing"] == "OFF")
        #expect(state["reveille/kitchen/ring_state"] == "idle")
        #expect(state["reveille/kitchen/master"] == "ON")
        #expect(state["reveille/kitchen/alarm/1/enabled"] == "ON")
        #expect(state["reveille/kitchen/alarm/2/enabled"] == "OFF")
        let left = state[Self.topics.timeLeft("léa/#")]
        #expect(left == #"{"apps":{"minecraft":40,"tuxpaint":85},"minutes":40,"user":"léa/#"}"#)
        #expect(state[Self.topics.requests("léa/#")]?.hasPrefix(#"{"count":1,"#) == true)

        var ringing = Self.snapshot
        ringing.status = Self.status(session: Self.session(.ringing))
        ringing.status.nextRing = nil
        let now = Self.model.retained(ringing)
        #expect(now["reveille/kitchen/ringing"] == "ON")
        #expect(now["reveille/kitchen/ring_state"] == "ringing")
        #expect(now["reveille/kitchen/next_ring"] == #"{"at":null,"reason":"no alarm ahead"}"#)
        ringing.status.session = Self.session(.snoozed, snoozes: 1)
        #expect(Self.model.retained(ringing)["reveille/kitchen/ring_state"] == "snoozed")
    }

    @Test func onlyWhatChangedIsPublishedAndWhatIsGoneIsCleared() {
        let before = Self.model.retained(Self.snapshot)
        #expect(BridgeModel.changes(from: before, to: before).isEmpty)
        var fewer = Self.snapshot
        fewer.alarms.removeLast()
        let after = Self.model.retained(fewer)
        let changes = BridgeModel.changes(from: before, to: after)
        #expect(
            Set(changes.map(\.topic)) == [
                "homeassistant/switch/reveille_kitchen/alarm_2/config", "reveille/kitchen/alarm/2/enabled",
                "reveille/kitchen/alarm/2/attributes",
            ])
        #expect(changes.allSatisfy { $0.payload.isEmpty && $0.retain })
        // Everything from nothing: discovery before state.
        let all = BridgeModel.changes(from: [:], to: after)
        let firstState = all.firstIndex { !$0.topic.hasSuffix("/config") }!
        #expect(all[..<firstState].allSatisfy { $0.topic.hasSuffix("/config") })
        #expect(all[firstState...].allSatisfy { !$0.topic.hasSuffix("/config") })
    }

    @Test func eventsForWhatTheHouseholdHearsAbout() {
        let model = Self.model
        #expect(
            model.event(.session(Self.session(.ringing)), at: "06:45:00")?.payload.contains(#""event_type":"fired""#)
                == true)
        // Every ring is "fired", the first and each again: after a snooze, and after an
        // unanswered wake-up check, with `again` saying why.
        let again = model.event(.session(Self.session(.ringing, snoozes: 1)), at: nil)?.payload ?? ""
        #expect(again.contains(#""event_type":"fired""#) && again.contains(#""again":"snooze""#), "\(again)")
        var checked = Self.session(.ringing)
        checked.reason = "wake-check"
        let recheck = model.event(.session(checked), at: nil)?.payload ?? ""
        #expect(recheck.contains(#""event_type":"fired""#) && recheck.contains(#""again":"wake-check""#), "\(recheck)")
        #expect(model.event(.session(Self.session(.ringing)), at: nil)?.payload.contains("again") == false)
        #expect(model.event(.session(Self.session(.snoozed, snoozes: 1)), at: nil)?.payload.contains("snoozed") == true)
        let dismissed = model.event(.session(Self.session(.dismissed)), at: nil)
        #expect(dismissed?.payload.contains(#""by":"math""#) == true && dismissed?.retain == false)
        #expect(
            model.event(.missed(MissedInfo(alarmID: 1, label: "work", scheduledTime: "06:45")), at: nil)?.payload
                .contains("missed") == true)
        #expect(model.event(.silent(true), at: nil)?.payload.contains("silent") == true)
        #expect(model.event(.silent(false), at: nil) == nil)
        #expect(model.event(.schedule, at: nil) == nil)
        #expect(
            model.event(.reminder(ChimeInfo(text: "bins", origin: "reminder #1", due: "19:00")), at: nil)?.payload
                .contains("chime") == true)
        for type in ["fired", "snoozed", "dismissed", "missed", "silent", "chime", "refused"] {
            #expect(BridgeModel.eventTypes.contains(type))
        }
    }

    @Test func inboundCommandsAreExactAndNothingDismisses() {
        let model = Self.model
        func decide(_ topic: String, _ payload: String) -> Inbound {
            model.inbound(topic: topic, payload: Array(payload.utf8), snapshot: Self.snapshot)
        }
        #expect(decide("reveille/kitchen/snooze/press", "PRESS") == .send(.snooze, what: "snooze"))
        #expect(decide("reveille/kitchen/master/set", "OFF") == .send(.pause(until: nil), what: "alarms off"))
        #expect(decide("reveille/kitchen/master/set", "ON") == .send(.resume, what: "alarms on"))
        #expect(
            decide("reveille/kitchen/alarm/2/set", "ON")
                == .send(.alarmSetEnabled(id: 2, enabled: true), what: "enable alarm #2"))
        for (topic, payload) in [
            ("reveille/kitchen/snooze/press", "DISMISS"), ("reveille/kitchen/master/set", "off"),
            ("reveille/kitchen/alarm/3/set", "OFF"), ("reveille/kitchen/alarm/-1/set", "OFF"),
            ("reveille/kitchen/alarm/99999999999999999999/set", "OFF"), ("reveille/kitchen/alarm/1/2/set", "OFF"),
            ("reveille/kitchen/dismiss", "PRESS"), ("reveille/kitchen/apps/answer", #"{"id":3,"approve":true}"#),
            ("reveille/kitchen/snooze/press", String(repeating: "P", count: 10_000)),
            // Exact: a newline or a space is not the command.
            ("reveille/kitchen/master/set", "OFF\n"), ("reveille/kitchen/snooze/press", " PRESS"),
            ("reveille/kitchen/alarm/2/set", "ON "),
        ] {
            guard case .ignore = decide(topic, payload) else {
                Issue.record("\(topic) \(payload.prefix(20)) was not ignored")
                continue
            }
        }
        let approving = BridgeModel(topics: Self.topics, host: "kitchen", approvals: true)
        #expect(
            approving.inbound(
                topic: "reveille/kitchen/apps/answer", payload: Array(#"{"id":3,"approve":true}"#.utf8), snapshot: nil)
                == .send(.appAnswer(id: 3, approve: true), what: "approve request #3"))
        #expect(
            Self.ignores(approving, "reveille/kitchen/apps/answer", #"{"id":"3; rm"}"#), "a malformed answer was taken")
    }

    /// The bridge's own retained topics come back to it, to be cleared when the clock no longer has
    /// them; a command topic is never one of them.
    @Test func theBridgesOwnRetainedTopicsAreKnownAgain() {
        let model = Self.model
        func decide(_ topic: String, _ payload: String) -> Inbound {
            model.inbound(topic: topic, payload: Array(payload.utf8), snapshot: Self.snapshot)
        }
        #expect(
            decide("homeassistant/switch/reveille_kitchen/alarm_8/config", "{}")
                == .ownRetained("homeassistant/switch/reveille_kitchen/alarm_8/config", empty: false))
        #expect(
            decide("reveille/kitchen/alarm/8/enabled", "")
                == .ownRetained("reveille/kitchen/alarm/8/enabled", empty: true))
        #expect(
            decide("reveille/kitchen/apps/leo/time_left", "30")
                == .ownRetained("reveille/kitchen/apps/leo/time_left", empty: false))
        // Another clock's discovery, and the command topics, are not.
        guard case .ignore = decide("homeassistant/switch/reveille_bedroom/alarm_8/config", "{}") else {
            Issue.record("another node's config was taken as this bridge's")
            return
        }
        #expect(
            decide("reveille/kitchen/alarm/2/set", "ON")
                == .send(.alarmSetEnabled(id: 2, enabled: true), what: "enable alarm #2"))
        #expect(BridgeTopics.matches("a/+/c", "a/b/c") && !BridgeTopics.matches("a/+/c", "a//c"))
        #expect(!BridgeTopics.matches("a/+/c", "a/b/c/d") && !BridgeTopics.matches("a/+", "b/x"))
        for topic in Self.topics.ownRetained { #expect(Self.topics.subscriptions.contains(topic)) }
    }

    /// Whether `model` ignores `payload` on `topic`: it logs it and sends the daemon nothing.
    static func ignores(_ model: BridgeModel, _ topic: String, _ payload: String) -> Bool {
        if case .ignore = model.inbound(topic: topic, payload: Array(payload.utf8), snapshot: nil) { return true }
        return false
    }

    @Test func theHouseholdsCountsGoOutRetainedAndComeInChecked() {
        let topics = BridgeTopics(
            base: nil, discoveryPrefix: "homeassistant", host: "kitchen", household: "smiths", username: "clock-a")
        let model = BridgeModel(topics: topics, host: "kitchen", approvals: false)
        #expect(topics.machine == "clock-a")
        #expect(topics.subscriptions.contains("reveille-household/smiths/usage/+"))
        var snapshot = Self.snapshot
        snapshot.apps[0].usedSecondsHere = 1200
        let mine = model.retained(snapshot)["reveille-household/smiths/usage/clock-a"]
        #expect(mine == #"{"day":"2026-11-28","usage":[{"app":"minecraft","seconds":1200,"user":"léa\/#"}]}"#)
        // Without a household, nothing of the kind.
        #expect(!Self.model.retained(snapshot).keys.contains { $0.hasPrefix("reveille-household/") })
        let counts = Array(#"{"day":"2026-11-28","usage":[{"user":"lea","app":"minecraft","seconds":600}]}"#.utf8)
        #expect(
            model.inbound(topic: "reveille-household/smiths/usage/laptop", payload: counts, snapshot: nil)
                == .send(
                    .appsHousehold(
                        machine: "laptop", day: "2026-11-28",
                        usage: [HouseholdUsage(user: "lea", app: "minecraft", seconds: 600)]),
                    what: "the household's counts from laptop"))
        // Its own, back from the broker: nothing to do.
        #expect(
            model.inbound(topic: "reveille-household/smiths/usage/clock-a", payload: counts, snapshot: nil) == .echo)
        for bad in [
            #"{"day":"yesterday","usage":[]}"#,
            #"{"day":"2026-11-28","usage":[{"user":"lea","app":"m","seconds":"1"}]}"#,
            "not json", String(repeating: " ", count: 20_000),
        ] {
            #expect(Self.ignores(model, "reveille-household/smiths/usage/laptop", bad), "\(bad.prefix(30)) was taken")
        }
    }

    @Test func theHubPublishesItsPolicyAndGrantsAndTheOthersFollowThemOnly() {
        func topics(hub: Bool, user: String) -> BridgeTopics {
            BridgeTopics(
                base: nil, discoveryPrefix: "homeassistant", host: "kitchen", household: "smiths", username: user,
                hub: hub)
        }
        let hub = BridgeModel(topics: topics(hub: true, user: "clock"), host: "kitchen", approvals: false)
        let laptop = BridgeModel(topics: topics(hub: false, user: "laptop"), host: "laptop", approvals: false)
        var snapshot = Self.snapshot
        snapshot.apps[0].grantMinutes = 20
        snapshot.policyText = "[[app]]\nname = \"minecraft\"\n"
        let out = hub.retained(snapshot)
        #expect(
            out["reveille-household/smiths/hub/policy"]
                == #"{"hub":"clock","policy":"[[app]]\nname = \"minecraft\"\n"}"#)
        #expect(
            out["reveille-household/smiths/hub/grants"]
                == #"{"day":"2026-11-28","grants":[{"app":"minecraft","minutes":20,"user":"léa\/#"}],"hub":"clock"}"#)
        // A member publishes neither, and listens to both; the hub listens to neither.
        #expect(!laptop.retained(snapshot).keys.contains { $0.contains("/hub/") })
        #expect(laptop.topics.subscriptions.filter { $0.contains("/hub/") }.count == 3)
        #expect(!hub.topics.subscriptions.contains { $0.contains("/hub/") })
        // Nor does a machine of no household, even one that says it is a hub.
        let alone = BridgeTopics(base: nil, discoveryPrefix: "homeassistant", host: "kitchen", hub: true)
        #expect(!alone.hub && alone.hubPolicy == nil)

        let policy = Array(out["reveille-household/smiths/hub/policy"]!.utf8)
        #expect(
            laptop.inbound(topic: "reveille-household/smiths/hub/policy", payload: policy, snapshot: nil)
                == .send(
                    .appsFromHub(hub: "clock", policy: "[[app]]\nname = \"minecraft\"\n", grants: nil),
                    what: "the household's policy from clock"))
        #expect(
            laptop.inbound(
                topic: "reveille-household/smiths/hub/grants",
                payload: Array(out["reveille-household/smiths/hub/grants"]!.utf8), snapshot: nil)
                == .send(
                    .appsFromHub(
                        hub: "clock", policy: nil,
                        grants: HubGrants(
                            day: "2026-11-28", grants: [HubGrants.Grant(app: "minecraft", user: "léa/#", minutes: 20)])),
                    what: "the household's grants from clock"))
        #expect(hub.inbound(topic: "reveille-household/smiths/hub/policy", payload: policy, snapshot: nil) == .echo)
        for bad in ["", "not json", #"{"hub":"x"}"#, String(repeating: " ", count: 20_000)] {
            #expect(
                Self.ignores(laptop, "reveille-household/smiths/hub/policy", bad),
                "\(bad.prefix(30)) was taken as a policy")
        }
        // A policy too large for the members is not published at all (they keep the last one).
        snapshot.policyText = String(repeating: "# a comment\n", count: 1200)
        #expect(hub.retained(snapshot)["reveille-household/smiths/hub/policy"] == nil)
        #expect(hub.hubPolicyMessage(snapshot.policyText!) == nil)
    }

    @Test func theHubsGrantsAreCheckedInTheCore() throws {
        let checked = try AppLimits.checkedGrants([("minecraft", "lea", 20), ("tuxpaint", "*", 15)])
        #expect(
            checked == [AppUsageKey(app: "minecraft", user: "lea"): 20, AppUsageKey(app: "tuxpaint", user: "*"): 15])
        for bad in [("minecraft", "lea", 0), ("minecraft", "", 20), ("", "lea", 20), ("minecraft", "lea", 1441)] {
            #expect(throws: InputError.self) { try AppLimits.checkedGrants([bad]) }
        }
        #expect(throws: InputError.self) {
            try AppLimits.checkedGrants(Array(repeating: ("m", "u", 1), count: AppLimits.countLimit + 1))
        }
        // The hub's name goes to logs and to 'apps list': a machine's name only.
        try AppLimits.checkedMachine("clock-a")
        for bad in ["", "a/b", "\u{1B}[2J", String(repeating: "x", count: 65)] {
            #expect(throws: InputError.self) { try AppLimits.checkedMachine(bad) }
        }
    }

    @Test func commandsAreRateLimited() {
        var bucket = TokenBucket(capacity: 5, secondsPerToken: 1)
        #expect((0..<5).allSatisfy { _ in bucket.take(now: 100) })
        let early = bucket.take(now: 100.5)
        let refilled = bucket.take(now: 101.6)
        let again = bucket.take(now: 101.7)
        #expect(!early && refilled && !again)
        #expect((0..<5).allSatisfy { _ in bucket.take(now: 1000) })
    }

    @Test func timestampsAreISO8601InUTC() {
        #expect(BridgeModel.iso8601(0) == "1970-01-01T00:00:00+00:00")
        #expect(BridgeModel.iso8601(1_796_017_500) == "2026-11-30T05:45:00+00:00")
        #expect(BridgeModel.iso8601(951_782_400) == "2000-02-29T00:00:00+00:00")
    }

    @Test func theMQTTTableIsReadAndCheckedWithTheSettings() throws {
        let settings = try Settings.parse(
            TOMLDocument(
                path: "reveille.toml",
                text: """
                    [mqtt]
                    host = "broker.home.arpa"
                    port = 8883
                    ca_file = "/etc/reveille/mqtt-ca.pem"
                    username = "clock"
                    password_file = "/etc/reveille/mqtt-password"
                    base_topic = "home/clock"
                    approvals = true
                    """))
        let mqtt = try #require(settings.mqtt)
        #expect(
            mqtt.host == "broker.home.arpa" && mqtt.port == 8883 && mqtt.baseTopic == "home/clock" && mqtt.approvals)
        #expect(mqtt.discoveryPrefix == "homeassistant" && mqtt.keepaliveSeconds == 60)
        #expect(try Settings.parse(TOMLDocument(path: "reveille.toml", text: "")).mqtt == nil)
        // A household's machines follow its hub; the hub, and a machine of no household, do not.
        func follows(_ text: String) throws -> Bool? {
            try Settings.parse(TOMLDocument(path: "reveille.toml", text: "[mqtt]\nhost = \"h\"\n" + text)).mqtt?
                .followsHub
        }
        #expect(try follows("household = \"smiths\"") == true)
        #expect(try follows("household = \"smiths\"\nhub = true") == false)
        #expect(try follows("") == false)
        // The household's pins: a member's hub_key, the hub's machines, as codes in one spelling.
        let member = try Settings.parse(
            TOMLDocument(path: "reveille.toml", text: "[mqtt]\nhost = \"h\"\nhousehold = \"smiths\"\nhub_key = \"7kq2 m9xc 40tf hz3d\""))
        #expect(member.mqtt?.hubKey == "7KQ2-M9XC-40TF-HZ3D")
        let hub = try Settings.parse(
            TOMLDocument(
                path: "reveille.toml",
                text: "[mqtt]\nhost = \"h\"\nhousehold = \"smiths\"\nhub = true\nmachines = [\"laptop = 7KQ2-M9XC-40TF-HZ3D\"]"))
        #expect(hub.mqtt?.machines == ["laptop": "7KQ2-M9XC-40TF-HZ3D"])
        for (bad, says) in [
            ("household = \"s\"\nhub_key = \"7KQ2-M9XC-40TF\"", "not a key's code"),
            ("hub_key = \"7KQ2-M9XC-40TF-HZ3D\"", "a hub key is a household's"),
            ("household = \"s\"\nhub = true\nhub_key = \"7KQ2-M9XC-40TF-HZ3D\"", "the hub pins no hub"),
            ("household = \"s\"\nmachines = [\"laptop=7KQ2-M9XC-40TF-HZ3D\"]", "only the hub lists"),
            ("household = \"s\"\nhub = true\nmachines = [\"laptop\"]", "is not NAME=CODE"),
            ("household = \"s\"\nhub = true\nmachines = [\"a/b=7KQ2-M9XC-40TF-HZ3D\"]", "is not NAME=CODE"),
            (
                "household = \"s\"\nhub = true\nmachines = [\"a=7KQ2-M9XC-40TF-HZ3D\", \"a=7KQ2-M9XC-40TF-HZ3E\"]",
                "listed twice"
            ),
        ] {
            do {
                _ = try Settings.parse(TOMLDocument(path: "reveille.toml", text: "[mqtt]\nhost = \"h\"\n" + bad))
                Issue.record("\(bad) was taken")
            } catch {
                #expect("\(error)".contains(says), "\(error)")
            }
        }
        for bad in [
            "[mqtt]\nport = 1883", "[mqtt]\nhost = \"a b\"", "[mqtt]\nhost = \"h\"\nbase_topic = \"a/+/b\"",
            "[mqtt]\nhost = \"h\"\nbase_topic = \"a//b\"", "[mqtt]\nhost = \"h\"\npassword_file = \"/p\"",
            "[mqtt]\nhost = \"h\"\nca_file = \"ca.pem\"", "[mqtt]\nhost = \"h\"\nbroker = \"x\"",
            "[mqtt]\nhost = \"h\"\nhub = true",
        ] {
            #expect(throws: ConfigError.self, "\(bad)") {
                try Settings.parse(TOMLDocument(path: "reveille.toml", text: bad))
            }
        }
    }

    @Test func aSnoozePressCostsTheSnoozeAndOneStatus() {
        // A snooze streams the session and the next ring: only `status` is read again.
        let snoozed = WatchEvent.session(Self.session(.snoozed, snoozes: 1))
        #expect(DaemonReads.after(snoozed) == .status)
        #expect(DaemonReads.after(.nextRing(nil)) == .status)
        // A switch or a pause: the alarms too; the apps only when they change.
        #expect(DaemonReads.after(.schedule) == [.status, .alarms])
        #expect(DaemonReads.after(.appGranted(AppGranted(app: "a", user: nil, minutes: 5))) == .apps)
        #expect(DaemonReads.after(.appPolicy(3)).isSuperset(of: [.apps, .policy]))
        #expect(!DaemonReads.after(.appPolicy(3)).contains(.status))
    }

    @Test func anAlarmsSwitchCarriesEverySettingOfTheDeclarationAsAttributes() throws {
        var snapshot = Self.snapshot
        snapshot.alarms[0].alarm.volumeCeiling = 60
        snapshot.alarms[0].alarm.sound = "/usr/share/sounds/birds.ogg"
        snapshot.alarms[0].alarm.tags = ["kitchen", "hall"]
        let out = Self.model.retained(snapshot)
        let id = snapshot.alarms[0].alarm.id
        let text = try #require(out["reveille/kitchen/alarm/\(id)/attributes"])
        #expect(text.contains(#""volume_ceiling":60"#) && text.contains(#""volume":"#))
        // Every setting by name, the sound and the tags too.
        #expect(text.contains(#""sound":"/usr/share/sounds/birds.ogg""#) && text.contains(#""tags":["kitchen","hall"]"#), "\(text)")
        for setting in Alarm.settings {
            #expect(text.contains("\"\(BridgeModel.snakeCase(setting.key))\":"), "no \(setting.key) in \(text)")
        }
        let config = try #require(out["homeassistant/switch/reveille_kitchen/alarm_\(id)/config"])
        #expect(config.contains("reveille/kitchen/alarm/\(id)/attributes"))
        // An earlier run's attributes are the bridge's own: cleared when the alarm is gone.
        #expect(Self.topics.isOwnRetained("reveille/kitchen/alarm/9/attributes"))
    }
}

/// What Home Assistant is told of a time: ISO 8601 with its date and offset, the local time beside.
@Suite struct EventTimesTests {
    @Test func anEventsTimesHaveTheirDateAndOffsetAndAPausedNextRingSaysWhy() throws {
        let model = BridgeModel(topics: BridgeModelTests.topics, host: "kitchen", approvals: false)
        var session = BridgeModelTests.session(.ringing)
        session.scheduledAt = 1_796_017_500  // 2026-11-30 05:45 UTC, 06:45 in Berlin
        let fired = try #require(model.event(.session(session), at: "06:45:02", instant: 1_796_017_502))
        #expect(fired.payload.contains(#""at":"2026-11-30T05:45:02+00:00""#), "\(fired.payload)")
        #expect(fired.payload.contains(#""local_time":"06:45:02""#))
        #expect(fired.payload.contains(#""scheduled":"2026-11-30T05:45:00+00:00""#))
        #expect(fired.payload.contains(#""scheduled_time":"06:45""#))
        var status = BridgeModelTests.status(master: .paused)
        status.nextRing = nil
        status.pausedUntil = "2026-12-10"
        var snapshot = BridgeModelTests.snapshot
        snapshot.status = status
        let next = try #require(model.retained(snapshot)[BridgeModelTests.topics.nextRing])
        #expect(next.contains(#""at":null"#) && next.contains(#""reason":"paused until 2026-12-10""#), "\(next)")
    }
}

/// Two Pis left at one host name, on one broker and one broker user: each is its own device in Home
/// Assistant, and neither's bridge takes the other's retained messages for its own.
@Suite struct TwoClocksOfOneNameTests {
    static let a = BridgeTopics(base: nil, discoveryPrefix: "homeassistant", host: "raspberrypi", device: "1a2b3c4d")
    static let b = BridgeTopics(base: nil, discoveryPrefix: "homeassistant", host: "raspberrypi", device: "5e6f7a8b")

    @Test func eachHasItsOwnTopicsIdsAndDevice() throws {
        #expect(Self.a.base == "reveille/raspberrypi/1a2b3c4d" && Self.b.base == "reveille/raspberrypi/5e6f7a8b")
        let config = Self.a.discovery("switch", "master")
        #expect(config == "homeassistant/switch/reveille_raspberrypi/1a2b3c4d_master/config")
        #expect(Self.a.isOwnRetained(config) && !Self.b.isOwnRetained(config), "B would clear A's switch")
        #expect(!Self.a.isOwnRetained(Self.b.alarmEnabled(3)) && Self.b.isOwnRetained(Self.b.alarmEnabled(3)))
        #expect(!Self.a.isLegacyRetained(Self.b.discovery("switch", "alarm_3")))
        #expect(!Self.a.isLegacyRetained(Self.b.availability) && !Self.a.isLegacyRetained("reveille/raspberrypi/5e6f7a8b"))
        // What the layout before device ids left is this clock's to clear.
        for old in [
            "homeassistant/switch/reveille_raspberrypi/master/config", "reveille/raspberrypi/availability",
            "reveille/raspberrypi/alarm/3/enabled", "reveille/raspberrypi/apps/lea/time_left",
        ] {
            #expect(Self.a.isLegacyRetained(old), "\(old)")
        }
        // A base the owner set has no earlier layout to clear.
        let set = BridgeTopics(base: "home/clock", discoveryPrefix: "homeassistant", host: "raspberrypi", device: "1a2b3c4d")
        #expect(set.legacyRetained.isEmpty && !set.isLegacyRetained("home/clock/availability"))
        // Home Assistant: one device each, told apart by the id; the name stays the host's.
        let model = BridgeModel(topics: Self.a, host: "raspberrypi", approvals: false)
        let text = try #require(model.retained(BridgeModelTests.snapshot)[config])
        #expect(text.contains(#""unique_id":"reveille_1a2b3c4d_master""#), "\(text)")
        #expect(text.contains(#""identifiers":["reveille_1a2b3c4d"]"#) && text.contains(#""name":"Reveille (raspberrypi)""#))
    }

    @Test func theDeviceIdIsMadeOnceAndKept() throws {
        let path = "/tmp/reveille-device-id-\(getpid())"
        defer { unlink(path) }
        let made = try DeviceID.loadOrMake(path)
        #expect(DeviceID.isWellFormed(made))
        #expect(try DeviceID.loadOrMake(path) == made)
        #expect(!DeviceID.isWellFormed("1A2B3C4D") && !DeviceID.isWellFormed("1a2b3c4") && !DeviceID.isWellFormed("../../x"))
    }
}
