import FoundationEssentials
import ReveilleCore
import ReveilleProtocol

/// What the bridge knows of the clock at one moment: the daemon's answers to `status`, `alarm
/// list`, `apps status --all` and `apps requests`.
public struct Snapshot: Sendable, Equatable {
    public var status: StatusInfo
    public var alarms: [AlarmInfo]
    public var apps: [AppStatusInfo]
    public var requests: [AppRequestInfo]
    /// The app policy in force as apps.toml's text (`apps export`): read on the household's hub only.
    public var policyText: String?

    public init(
        status: StatusInfo, alarms: [AlarmInfo], apps: [AppStatusInfo] = [], requests: [AppRequestInfo] = [],
        policyText: String? = nil
    ) {
        self.status = status
        self.alarms = alarms
        self.apps = apps
        self.requests = requests
        self.policyText = policyText
    }

    /// idle, sunrise, ringing, snoozed or checking: the ring state sensor's value.
    public var ringState: String {
        if let session = status.session, session.state == .ringing { return "ringing" }
        if let session = status.session, session.state == .snoozed { return "snoozed" }
        if let check = status.wakeCheck, check.state == "waiting" || check.state == "asking" { return "checking" }
        if status.sunrise != nil { return "sunrise" }
        return "idle"
    }

    /// The users some limit falls on, sorted.
    public var limitedUsers: [String] {
        Array(Set(apps.filter { $0.limitMinutes != nil }.map(\.user) + requests.map(\.user))).sorted()
    }
}

/// One message to the broker.
public struct Publication: Sendable, Equatable, CustomStringConvertible {
    public var topic: String
    public var payload: String
    public var retain: Bool

    public init(_ topic: String, _ payload: String, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }

    public var description: String { "\(topic) \(payload)\(retain ? " (retained)" : "")" }
}

/// What to do with a message that came in on a command topic.
public enum Inbound: Sendable, Equatable {
    /// Send `command` to the daemon; `what` names it in the log and in a refusal.
    case send(Command, what: String)
    /// Do nothing, and log `why` (nothing is published: a sender cannot make the bridge talk).
    case ignore(String)
    /// The bridge's own message, back from the broker: nothing to do or say.
    case echo
    /// A retained message where the bridge keeps its own (`BridgeTopics.ownRetained`): cleared
    /// unless the clock's state still has it (`empty`: a message that clears).
    case ownRetained(String, empty: Bool)
    /// A retained message this clock left in the layout before device ids
    /// (`BridgeTopics.isLegacyRetained`): cleared once, before this clock's are published.
    case legacyRetained(String, empty: Bool)
}

/// What the bridge reads from the daemon: each a request on the control socket.
public struct DaemonReads: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `status`: the next ring, the ring state, the master switch, the day.
    public static let status = DaemonReads(rawValue: 1)
    /// `alarm list`: each alarm's switch.
    public static let alarms = DaemonReads(rawValue: 2)
    /// `apps status --all`: time left, this machine's counts, today's grants.
    public static let apps = DaemonReads(rawValue: 4)
    /// `apps requests`.
    public static let requests = DaemonReads(rawValue: 8)
    /// `apps export`: the policy, which the household's hub publishes.
    public static let policy = DaemonReads(rawValue: 16)
    public static let all: DaemonReads = [.status, .alarms, .apps, .requests, .policy]

    /// What the daemon must be asked again after it streamed `event`: only what the event can
    /// have changed, so that a snooze pressed over MQTT costs the snooze and one `status`.
    public static func after(_ event: WatchEvent) -> DaemonReads {
        switch event {
        case .session, .missed, .wakeCheck, .sunrise, .silent, .nextRing, .tagOnReader, .readerHealth, .input,
            .reminder:
            .status
        case .schedule, .overrideRemoved: [.status, .alarms]
        case .appPolicy, .policyRejected: [.apps, .requests, .policy]
        case .appNotice, .appRunning, .appGranted: .apps
        case .appRequest: .requests
        // The broker is reached over the network: the bridge hears of it from its connection.
        case .network: []
        // The bedside screen's own business.
        case .screenWake: []
        }
    }
}

/// The bridge's decisions, as a pure function of what it knows: the retained state a snapshot
/// makes, the events a change makes, and what an inbound message asks for. The edge
/// (`BridgeLoop`) only reads the daemon, publishes, and sends what this decides.
public struct BridgeModel: Sendable {
    public let topics: BridgeTopics
    public let host: String
    public let approvals: Bool
    /// On the hub, the household's machines and their keys' codes, itself included: published
    /// signed, so that the members take those machines' counts and no one else's.
    public let householdMachines: [String: String]
    /// Every event type the event entity can show.
    public static let eventTypes = [
        "fired", "snoozed", "dismissed", "missed", "wake-check-failed", "silent", "chime", "refused",
    ]
    /// Inbound payloads longer than this are ignored unread: a command's, and a household
    /// machine's counts.
    public static let maxInboundBytes = 256
    public static let maxCountsBytes = 16 * 1024
    /// The hub publishes no larger policy (about a hundred apps): the members would not take it.
    public static let maxPolicyBytes = 12 * 1024

    /// The clock's page from another device (Home Assistant's "Visit" link on the device); nil
    /// when the page is the clock's own screen only.
    public let pageURL: String?
    /// The room Home Assistant first puts the clock in (`[mqtt] area`).
    public let area: String?

    public init(
        topics: BridgeTopics, host: String, approvals: Bool, householdMachines: [String: String] = [:],
        pageURL: String? = nil, area: String? = nil
    ) {
        self.topics = topics
        self.host = host
        self.approvals = approvals
        self.householdMachines = householdMachines
        self.pageURL = pageURL
        self.area = area
    }

    // MARK: Retained state

    /// Every retained topic the snapshot makes, discovery and state, with its payload. A topic
    /// that was published before and is not here any more (a removed alarm) is cleared with an
    /// empty retained payload, as Home Assistant's discovery expects.
    public func retained(_ snapshot: Snapshot) -> [String: String] {
        var out: [String: String] = [:]
        for (topic, config) in discovery(snapshot) { out[topic] = config.text }
        let status = snapshot.status
        let next: JSONValue =
            if let ring = status.nextRing {
                [
                    "at": .string(Self.iso8601(ring.instant)), "alarm": .int(ring.alarmID),
                    "label": .string(ring.label),
                    "layer": .string(ring.layer?.rawValue ?? "base"), "decided_by": .string(ring.decidedBy ?? "as set"),
                ]
            } else {
                // No time to show: Home Assistant's sensor is "unknown", and this says why.
                [
                    "at": .null,
                    "reason": .string(
                        status.master == .off
                            ? "alarms are off" : status.pausedUntil.map { "paused until \($0)" } ?? "no alarm ahead"),
                ]
            }
        out[topics.nextRing] = next.text
        out[topics.ringing] = snapshot.ringState == "ringing" ? "ON" : "OFF"
        out[topics.ringState] = snapshot.ringState
        out[topics.master] = status.master == .on ? "ON" : "OFF"
        for info in snapshot.alarms {
            out[topics.alarmEnabled(info.alarm.id)] = info.alarm.enabled ? "ON" : "OFF"
            out[topics.alarmAttributes(info.alarm.id)] = Self.attributes(info).text
        }
        for user in snapshot.limitedUsers {
            let limited = snapshot.apps.filter { $0.user == user }.compactMap { app -> (String, Int)? in
                guard let limit = app.limitMinutes else { return nil }
                return (app.name, max(0, limit - app.usedMinutes))
            }
            let left = limited.map(\.1).min()
            let perApp = JSONValue.object(
                Dictionary(limited.map { ($0.0, JSONValue.int($0.1)) }, uniquingKeysWith: { $1 }))
            out[topics.timeLeft(user)] =
                (["minutes": left.map(JSONValue.int) ?? .null, "apps": perApp, "user": .string(user)] as JSONValue).text
            let waiting = snapshot.requests.filter { $0.user == user && $0.state == .waiting }
            out[topics.requests(user)] =
                ([
                    "count": .int(waiting.count),
                    "requests": .array(
                        waiting.map {
                            [
                                "id": .int($0.id), "app": .string($0.app), "minutes": .int($0.minutes),
                                "why": .string($0.why ?? ""),
                            ]
                        }),
                ] as JSONValue).text
        }
        if let topic = topics.householdUsage(topics.machine) {
            let counts = snapshot.apps.compactMap { app -> HouseholdUsage? in
                guard let seconds = app.usedSecondsHere, seconds > 0 else { return nil }
                return HouseholdUsage(user: app.user, app: app.name, seconds: seconds)
            }
            out[topic] = HouseholdCounts(day: String(status.now.prefix(10)), usage: counts).text
        }
        if topics.hub, let policyTopic = topics.hubPolicy, let grantsTopic = topics.hubGrants {
            out[policyTopic] = snapshot.policyText.flatMap(hubPolicyMessage)
            let grants = snapshot.apps.filter { $0.grantMinutes > 0 }.map {
                HubGrants.Grant(app: $0.name, user: $0.user, minutes: $0.grantMinutes)
            }.sorted { ($0.app, $0.user) < ($1.app, $1.user) }
            out[grantsTopic] = CanonicalJSON.text(
                HubGrantsMessage(hub: topics.machine, day: String(status.now.prefix(10)), grants: grants))
            if let machinesTopic = topics.hubMachines {
                out[machinesTopic] = CanonicalJSON.text(HubMachines(hub: topics.machine, machines: householdMachines))
            }
        }
        return out
    }

    /// An alarm switch's attributes: its time and repeat, and every setting the declaration
    /// names (`Alarm.settings`), under snake_case keys as Home Assistant's are (`volume_ceiling`).
    static func attributes(_ info: AlarmInfo) -> JSONValue {
        var fields: [String: JSONValue] = [
            "time": .string(info.alarm.time.description), "repeats": .string(info.days ?? info.date ?? ""),
            "label": .string(info.alarm.label),
            // The two settings not in the declaration: the sound's file (null: the configured
            // sound, else the built-in tone) and the tags that stop it (empty: any registered tag).
            "sound": info.alarm.sound.map(JSONValue.string) ?? .null,
            "tags": .array(info.alarm.tags.map(JSONValue.string)),
        ]
        for setting in Alarm.settings {
            let value: JSONValue =
                switch setting.value(of: info.alarm) {
                case .int(let number): .int(number)
                case .bool(let flag): .bool(flag)
                case .text(let text): .string(text)
                case .ints(let numbers): .array(numbers.map(JSONValue.int))
                }
            fields[snakeCase(setting.key)] = value
        }
        return .object(fields)
    }

    /// `volumeCeiling` → `volume_ceiling`.
    static func snakeCase(_ key: String) -> String {
        key.reduce(into: "") { out, character in
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
    }

    /// The hub's message for its policy (apps.toml's text); nil when it is larger than the
    /// members take, and so not published.
    public func hubPolicyMessage(_ text: String) -> String? {
        guard let message = CanonicalJSON.text(HubPolicy(hub: topics.machine, policy: text)),
            message.utf8.count <= Self.maxPolicyBytes
        else { return nil }
        return message
    }

    /// What to publish to go from `published` (what the broker holds from us) to `wanted`:
    /// changed and new topics, and an empty payload for each topic no longer wanted.
    public static func changes(from published: [String: String], to wanted: [String: String]) -> [Publication] {
        let cleared = published.keys.filter { wanted[$0] == nil }.sorted().map { Publication($0, "", retain: true) }
        let set = wanted.filter { published[$0.key] != $0.value }.sorted { $0.key < $1.key }.map {
            Publication($0.key, $0.value, retain: true)
        }
        // Discovery first, so that Home Assistant knows an entity before its state arrives.
        return cleared + set.filter { $0.topic.hasSuffix("/config") } + set.filter { !$0.topic.hasSuffix("/config") }
    }

    // MARK: Discovery

    var device: JSONValue {
        var members: [String: JSONValue] = [
            "identifiers": [.string(topics.uniquePrefix)], "name": .string("Reveille (\(host))"), "manufacturer": "Reveille",
            "model": "bedside alarm clock", "sw_version": .string(reveilleVersion),
        ]
        if let pageURL { members["configuration_url"] = .string(pageURL) }
        if let area { members["suggested_area"] = .string(area) }
        return .object(members)
    }

    private func entity(_ object: String, _ name: String, _ fields: [String: JSONValue]) -> JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name), "unique_id": .string("\(topics.uniquePrefix)_\(object)"), "device": device,
            "availability_topic": .string(topics.availability), "payload_available": "online",
            "payload_not_available": "offline",
        ]
        for (key, value) in fields { members[key] = value }
        return .object(members)
    }

    /// Home Assistant's discovery configs, by topic: one device and its entities.
    public func discovery(_ snapshot: Snapshot) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        out[topics.discovery("sensor", "next_ring")] = entity(
            "next_ring", "Next ring",
            [
                "state_topic": .string(topics.nextRing), "device_class": "timestamp",
                "value_template": "{{ value_json.at if value_json.at else 'None' }}",
                "json_attributes_topic": .string(topics.nextRing), "icon": "mdi:alarm",
            ])
        out[topics.discovery("binary_sensor", "ringing")] = entity(
            "ringing", "Ringing",
            [
                "state_topic": .string(topics.ringing), "payload_on": "ON", "payload_off": "OFF",
                "device_class": "sound",
            ])
        out[topics.discovery("sensor", "ring_state")] = entity(
            "ring_state", "Ring state",
            [
                "state_topic": .string(topics.ringState), "device_class": "enum",
                "options": ["idle", "sunrise", "ringing", "snoozed", "checking"], "icon": "mdi:alarm-bell",
            ])
        out[topics.discovery("switch", "master")] = entity(
            "master", "Alarms on",
            [
                "state_topic": .string(topics.master), "command_topic": .string(topics.masterSet), "payload_on": "ON",
                "payload_off": "OFF", "icon": "mdi:alarm-check",
            ])
        out[topics.discovery("button", "snooze")] = entity(
            "snooze", "Snooze",
            ["command_topic": .string(topics.snoozePress), "payload_press": "PRESS", "icon": "mdi:alarm-snooze"])
        out[topics.discovery("event", "event")] = entity(
            "event", "Alarm event",
            [
                "state_topic": .string(topics.event), "event_types": .array(Self.eventTypes.map(JSONValue.string)),
                "icon": "mdi:alarm-note",
            ])
        for info in snapshot.alarms {
            let alarm = info.alarm
            let name = alarm.label.isEmpty ? "Alarm \(alarm.id)" : "Alarm \(alarm.id) \(alarm.label)"
            out[topics.discovery("switch", "alarm_\(alarm.id)")] = entity(
                "alarm_\(alarm.id)", name,
                [
                    "state_topic": .string(topics.alarmEnabled(alarm.id)),
                    "json_attributes_topic": .string(topics.alarmAttributes(alarm.id)),
                    "command_topic": .string(topics.alarmSet(alarm.id)), "payload_on": "ON", "payload_off": "OFF",
                    "icon": "mdi:alarm",
                ])
        }
        for user in snapshot.limitedUsers {
            let safe = TopicName.safe(user)
            out[topics.discovery("sensor", "time_left_\(safe)")] = entity(
                "time_left_\(safe)", "Time left today \(user)",
                [
                    "state_topic": .string(topics.timeLeft(user)), "value_template": "{{ value_json.minutes }}",
                    "unit_of_measurement": "min", "device_class": "duration",
                    "json_attributes_topic": .string(topics.timeLeft(user)), "icon": "mdi:timer-sand",
                ])
            out[topics.discovery("sensor", "requests_\(safe)")] = entity(
                "requests_\(safe)", "Requests for more time \(user)",
                [
                    "state_topic": .string(topics.requests(user)), "value_template": "{{ value_json.count }}",
                    "json_attributes_topic": .string(topics.requests(user)), "icon": "mdi:hand-back-right",
                ])
        }
        return out
    }

    // MARK: Events

    /// The event entity's message for a change the daemon streamed, if it is one the household
    /// hears about. `at`: the daemon's `HH:MM:SS`.
    /// `at` is the daemon's local `HH:MM:SS`, `instant` the same in seconds since the epoch: the
    /// event says both as ISO 8601 with its date and offset (`at`, `scheduled`), and the local
    /// times as they were (`local_time`, `scheduled_time`).
    public func event(_ event: WatchEvent, at: String?, instant: Int? = nil) -> Publication? {
        var fields: [String: JSONValue] = [:]
        let type: String
        switch event {
        case .session(let session):
            switch session.state {
            case .ringing:
                // Every ring is `fired`, the first and each again (after a snooze or an unanswered
                // wake-up check, said in `again`): an automation on `fired` sees every one.
                type = "fired"
                if session.snoozeCount > 0 || session.reason == "wake-check" {
                    fields["again"] = .string(session.reason == "wake-check" ? "wake-check" : "snooze")
                }
            case .snoozed: type = "snoozed"
            case .dismissed, .autoStopped: type = "dismissed"
            case .missed: type = "missed"
            }
            fields.merge([
                "alarm": .int(session.alarmID), "label": .string(session.label),
                "scheduled": .string(session.scheduledAt.map(Self.iso8601) ?? session.scheduledTime),
                "scheduled_time": .string(session.scheduledTime),
                "snoozes": .int(session.snoozeCount),
            ]) { again, _ in again }
            if let by = session.dismissedBy { fields["by"] = .string(by.rawValue) }
            if session.state == .autoStopped { fields["by"] = "time limit" }
            if session.test == true { fields["test"] = true }
        case .missed(let missed):
            type = "missed"
            fields = [
                "alarm": .int(missed.alarmID), "label": .string(missed.label),
                "scheduled": .string(missed.scheduledAt.map(Self.iso8601) ?? missed.scheduledTime),
                "scheduled_time": .string(missed.scheduledTime),
            ]
        case .wakeCheck(let check) where check.state == "failed":
            type = "wake-check-failed"
            fields = ["alarm": .int(check.alarmID), "label": .string(check.label)]
        case .silent(true):
            type = "silent"
        case .reminder(let chime):
            type = "chime"
            fields = ["text": .string(chime.text), "origin": .string(chime.origin), "due": .string(chime.due)]
        default:
            return nil
        }
        fields["event_type"] = .string(type)
        if let instant {
            fields["at"] = .string(Self.iso8601(instant))
            if let at { fields["local_time"] = .string(at) }
        } else if let at {
            fields["at"] = .string(at)
        }
        return Publication(topics.event, JSONValue.object(fields).text, retain: false)
    }

    /// The event that says a command over MQTT was refused, and why.
    public func refused(_ what: String, why: String) -> Publication {
        let value: JSONValue = [
            "event_type": "refused", "what": .string(what), "why": .string(String(why.prefix(300))),
        ]
        return Publication(topics.event, value.text, retain: false)
    }

    // MARK: Inbound

    /// What a message on a command topic asks for. Only exact payloads are understood; nothing
    /// over MQTT dismisses, and nothing it asks is sent unless the daemon would take it from the
    /// bridge's user anyway (the daemon still decides, and refuses what weakens a committed ring).
    public func inbound(topic: String, payload: [UInt8], snapshot: Snapshot?) -> Inbound {
        if topic == topics.hubPolicy || topic == topics.hubGrants {
            return fromHub(topic: topic, payload: payload)
        }
        if topics.isOwnRetained(topic) { return .ownRetained(topic, empty: payload.isEmpty) }
        if topics.isLegacyRetained(topic) { return .legacyRetained(topic, empty: payload.isEmpty) }
        if let all = topics.householdUsage("+") {
            let prefix = String(all.dropLast())
            if topic.hasPrefix(prefix) {
                let machine = String(topic.dropFirst(prefix.count))
                guard machine != topics.machine else { return .echo }
                guard payload.count <= Self.maxCountsBytes,
                    let counts = try? JSONDecoder().decode(HouseholdCounts.self, from: Data(payload)),
                    counts.usage.count <= 256, (try? CivilDate.parse(counts.day)) != nil
                else {
                    return .ignore("\(Self.shown(topic)): not a household machine's counts")
                }
                return .send(
                    .appsHousehold(machine: machine, day: counts.day, usage: counts.usage),
                    what: "the household's counts from \(machine)")
            }
        }
        guard payload.count <= Self.maxInboundBytes else {
            return .ignore("a \(payload.count)-byte message on \(topic): more than \(Self.maxInboundBytes) bytes")
        }
        // Exact: "OFF\n" or " PRESS" is not a command.
        let text = String(decoding: payload, as: UTF8.self)
        if topic == topics.snoozePress {
            guard text == "PRESS" else { return .ignore("snooze: \"\(Self.shown(text))\" is not PRESS") }
            return .send(.snooze, what: "snooze")
        }
        if topic == topics.masterSet {
            switch text {
            case "ON": return .send(.resume, what: "alarms on")
            case "OFF": return .send(.pause(until: nil), what: "alarms off")
            default: return .ignore("alarms on/off: \"\(Self.shown(text))\" is not ON or OFF")
            }
        }
        if topic == topics.requestAnswer {
            guard approvals else {
                return .ignore("answering requests over MQTT is off (set approvals = true in [mqtt] to allow it)")
            }
            guard let answer = RequestAnswer.parse(text) else {
                return .ignore(
                    "a request's answer: \"\(Self.shown(text))\" is not {\"id\": N, \"approve\": true|false}")
            }
            return .send(
                .appAnswer(id: answer.id, approve: answer.approve),
                what: "\(answer.approve ? "approve" : "refuse") request #\(answer.id)")
        }
        let prefix = topics.base + "/alarm/"
        if topic.hasPrefix(prefix), topic.hasSuffix("/set") {
            let middle = topic.dropFirst(prefix.count).dropLast(4)
            guard middle.count <= 9, let id = Int(middle), id > 0 else {
                return .ignore("\(topic): not an alarm's number")
            }
            if let snapshot, !snapshot.alarms.contains(where: { $0.alarm.id == id }) {
                return .ignore("\(topic): there is no alarm #\(id)")
            }
            switch text {
            case "ON": return .send(.alarmSetEnabled(id: id, enabled: true), what: "enable alarm #\(id)")
            case "OFF": return .send(.alarmSetEnabled(id: id, enabled: false), what: "disable alarm #\(id)")
            default: return .ignore("alarm #\(id): \"\(Self.shown(text))\" is not ON or OFF")
            }
        }
        return .ignore("\(Self.shown(topic)): not a topic the bridge answers")
    }

    /// The hub's policy or grants, on a machine that follows the hub; the hub's own, back.
    private func fromHub(topic: String, payload: [UInt8]) -> Inbound {
        if topics.hub { return .echo }
        if payload.isEmpty { return .ignore("\(topic): cleared (no hub publishes it)") }
        guard payload.count <= Self.maxCountsBytes else {
            return .ignore("a \(payload.count)-byte message on \(topic): more than \(Self.maxCountsBytes) bytes")
        }
        let decoder = JSONDecoder()
        if topic == topics.hubPolicy {
            guard let message = try? decoder.decode(HubPolicy.self, from: Data(payload)) else {
                return .ignore("\(topic): not a hub's policy ({\"hub\": ..., \"policy\": ...})")
            }
            return .send(
                .appsFromHub(hub: message.hub, policy: message.policy, grants: nil),
                what: "the household's policy from \(Self.shown(message.hub))")
        }
        guard let message = try? decoder.decode(HubGrantsMessage.self, from: Data(payload)) else {
            return .ignore("\(topic): not a hub's grants ({\"hub\": ..., \"day\": ..., \"grants\": [...]})")
        }
        return .send(
            .appsFromHub(hub: message.hub, policy: nil, grants: HubGrants(day: message.day, grants: message.grants)),
            what: "the household's grants from \(Self.shown(message.hub))")
    }

    /// A payload for a log line: at most 40 characters, control characters shown as `?`.
    static func shown(_ text: String) -> String {
        String(text.prefix(40).map { $0.isASCII && ($0.asciiValue! < 32 || $0.asciiValue! == 127) ? "?" : $0 })
    }

    /// An ISO 8601 instant in UTC (`2026-11-28T06:45:00+00:00`), as Home Assistant's timestamp sensors take.
    public static func iso8601(_ seconds: Int) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - day * 86_400
        let (y, m, d) = CivilDate(dayNumber: day).components
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))+00:00"
    }
}

/// A machine's counts for the household: `{"day": "2026-11-28", "usage": [{"user": ..., "app": ..., "seconds": ...}]}`.
struct HouseholdCounts: Codable {
    var day: String
    var usage: [HouseholdUsage]

    var text: String {
        let sorted = HouseholdCounts(day: day, usage: usage.sorted { ($0.user, $0.app) < ($1.user, $1.app) })
        return CanonicalJSON.text(sorted) ?? "{}"
    }
}

/// The hub's policy: `{"hub": "clock", "policy": "[[app]]\n..."}`.
struct HubPolicy: Codable {
    var hub: String
    var policy: String
}

/// The hub's grants of today: `{"hub": "clock", "day": "2026-11-28", "grants": [{"app": ..., "user": ..., "minutes": 20}]}`.
struct HubGrantsMessage: Codable {
    var hub: String
    var day: String
    var grants: [HubGrants.Grant]
}

/// JSON with its keys sorted, so that the same content is the same text (and a retained topic
/// is not published again for nothing).
enum CanonicalJSON {
    static func text<T: Encodable>(_ value: T) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// `{"id": 3, "approve": true}`, read strictly.
struct RequestAnswer: Decodable {
    var id: Int
    var approve: Bool

    static func parse(_ text: String) -> RequestAnswer? {
        guard let answer = try? JSONDecoder().decode(RequestAnswer.self, from: Data(text.utf8)), answer.id > 0 else {
            return nil
        }
        return answer
    }
}

extension String {
    var trimmingSpaces: String {
        String(
            self.drop(while: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).reversed().drop(while: {
                $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t"
            }).reversed())
    }
}
