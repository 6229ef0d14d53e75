import CReveilleShims
import FoundationEssentials
import Glibc
import Logging
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// `reveille-mqtt`'s one loop: the broker's socket, the daemon's events and the signals, polled
/// together. It reads the daemon, publishes what `BridgeModel` decides, and sends the daemon what
/// an inbound command asks, when the model and the rate limit allow it. Idle, it wakes once per
/// keepalive to ping the broker; while a limited app runs it then reads the daemon again too (the
/// time left to children changes while they play), and otherwise leaves the daemon asleep.
public final class BridgeLoop {
    private let settings: Settings.MQTT
    private let paths: Paths
    private let model: BridgeModel
    private let logger: Logger
    private let password: String?
    private var client: MosquittoClient
    private let follower: DaemonFollower
    private var commands = TokenBucket(capacity: 5, secondsPerToken: 1)
    /// The household's machines' counts: each publishes about once per keepalive.
    private var counts = TokenBucket(capacity: 32, secondsPerToken: 1)
    /// The hub's policy, grants and list: a bucket of their own, so that no machine's counts (nor
    /// anything a broker can send) spend what the hub's next change needs.
    private var hubMessages = TokenBucket(capacity: 8, secondsPerToken: 1)
    /// `refused` events published to the broker: a flood of refused presses is a few events.
    private var refusedEvents = TokenBucket(capacity: 2, secondsPerToken: 5)
    /// Commands dropped by the rate limit since the last line that said so (`noteIgnored`: one
    /// line a period, with the true count).
    private var tooFast = (count: 0, loggedAt: -Double.infinity)
    /// Verified household messages not passed on yet (the rate limit, or a number ahead of this
    /// machine's clock), the newest per topic, and when to try again: they are never lost to a
    /// flood, only delayed.
    private var held: [String: (message: MosquittoClient.Message, at: Double)] = [:]
    static let heldAheadSeconds = 60.0
    /// Retained messages of the bridge's own that the broker handed back, to be cleared once the
    /// clock's state is known, unless that state still has them.
    private var leftovers: Set<String> = []
    /// Events from the daemon, published after the state they change (so that `fired` comes
    /// after Ringing is on: an automation that checks Ringing sees it on).
    private var events: [Publication] = []
    /// `refused` events of this turn, published after the daemon's events.
    private var refusals: [Publication] = []
    /// Messages ignored (malformed, unknown, too large) since the last line that said so: one
    /// line at most every `ignoredLogSeconds`, with the count, so that a flood is not a flood of
    /// the log too.
    private var ignored = (count: 0, loggedAt: -Double.infinity)
    /// The same for what the household's topics bring, kept apart per hub topic (and one for
    /// all machines' counts), so that a flood of forged counts does not hide a forged policy.
    private var householdIgnored: [String: (count: Int, loggedAt: Double)] = [:]
    static let ignoredLogSeconds = 10.0
    /// Until when (monotonic) nothing is published after a connection, while the broker hands
    /// back what an earlier version left (`BridgeTopics.legacyRetained`).
    private var settlingUntil: Double?
    static let settleSeconds = 1.0
    /// When the connection to the broker began (monotonic); nil while there is none.
    private var connectedAt: Double?
    /// A connection that lasted this long was a good one: the next loss waits 1 s again.
    static let stableSeconds = 30.0

    /// What the broker holds from this bridge, retained, by topic.
    private var published: [String: String] = [:]
    private var availability: String?
    private var snapshot: Snapshot?
    private var daemonUp = false
    private var health: BridgeHealth
    /// Limited apps running now (from the daemon's events), and whether this machine's counted
    /// time moved between the last two reads: the keepalive's wake-up reads the daemon again only
    /// then, so that an idle clock is not woken by its bridge.
    private var running: Set<AppUsageKey> = []
    private var usageMoved = true
    /// The retained state is to be published again without a read (a refused command).
    private var republish = false
    /// Requests made to the daemon since the bridge started, said when it stops.
    private var daemonRequests = 0
    /// In a household: this machine's key, the numbers it signs with, and what it takes.
    private let householdKey: HouseholdKey?
    private var numbers = HouseholdNumbers()
    private var trust: HouseholdTrust

    public init(
        settings: Settings.MQTT, paths: Paths, host: String, password: String?, pageURL: String? = nil,
        logger: Logger
    )
        throws(BridgeError)
    {
        self.settings = settings
        self.paths = paths
        self.password = password
        self.logger = logger
        // This machine's device id, made once: what tells it from another clock of the same name.
        let device: String
        do {
            try FileManager.default.createDirectory(atPath: paths.bridgeState, withIntermediateDirectories: true)
            device = try DeviceID.loadOrMake(paths.bridgeState + "/device-id")
        } catch {
            throw BridgeError("cannot keep this clock's device id in \(paths.bridgeState)/device-id: \(error)")
        }
        let topics = BridgeTopics(
            base: settings.baseTopic, discoveryPrefix: settings.discoveryPrefix, host: host,
            household: settings.household, username: settings.username, hub: settings.hub, device: device)
        var key: HouseholdKey?
        var machines = settings.machines
        var seen: [String: Int] = [:]
        if settings.household != nil {
            let (made, isNew) = try HouseholdKey.loadOrMake(paths.bridgeState + "/household.key")
            key = made
            if isNew { logger.notice("made this machine's household key: its code is \(made.code)") }
            if topics.hub {
                machines[topics.machine] = made.code
                numbers = HouseholdNumbers(last: Self.readNumber(paths.bridgeState + "/household.n"))
            } else {
                seen = HouseholdTrust.sane(
                    Self.readSeen(paths.bridgeState + "/household.seen", hubCode: settings.hubKey),
                    wallSeconds: Int(Wall.seconds()))
            }
        }
        householdKey = key
        trust = HouseholdTrust(topics: topics, hubCode: settings.hubKey, machines: machines, seen: seen)
        model = BridgeModel(
            topics: topics, host: host, approvals: settings.approvals,
            householdMachines: topics.hub ? machines : [:], pageURL: pageURL, area: settings.area)
        try MosquittoClient.setUpLibrary()
        client = try MosquittoClient(clientID: "\(topics.node)-\(getpid())")
        do {
            follower = try DaemonFollower()
        } catch {
            throw BridgeError("\(error)")
        }
        health = BridgeHealth(
            broker: "\(settings.host):\(settings.port)", connected: false, since: Wall.seconds(), lastConnected: nil,
            problem: nil, daemonUp: false, pid: Int(getpid()))
        health.householdCode = key?.code
        try client.configure(
            username: settings.username, password: password, caFile: settings.caFile,
            will: Publication(topics.availability, "offline", retain: true))
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    public func run() -> Int32 {
        let signals = RV_signalfd_termination()
        guard signals >= 0 else {
            logger.critical("cannot read signals: \(String(cString: strerror(errno)))")
            return 1
        }
        follower.start(socketPath: paths.socket)
        logger.info(
            "reveille-mqtt \(reveilleVersion): broker \(settings.host):\(settings.port)\(settings.caFile == nil ? "" : " over TLS"), topics under \(model.topics.base), discovery under \(settings.discoveryPrefix)"
        )
        if let household = model.topics.household, let code = householdKey?.code {
            let others = trust.machines.keys.filter { $0 != model.topics.machine }.sorted()
            if model.topics.hub {
                logger.info(
                    "household \(household): the hub, its key's code \(code); taking the counts of \(others.isEmpty ? "no other machine (list them in [mqtt] machines)" : others.joined(separator: ", "))"
                )
            } else if let hub = settings.hubKey {
                logger.info("household \(household): following the hub whose key's code is \(hub); this machine's is \(code)")
            } else {
                logger.warning(
                    "household \(household): no hub_key in [mqtt], so nothing from the household is taken; this machine's code is \(code)"
                )
            }
        }
        var retryAt = 0.0
        var backoff = 1.0
        writeHealth()
        while true {
            let now = Monotonic.seconds()
            if client.socket < 0 && now >= retryAt {
                do {
                    try client.connect(host: settings.host, port: settings.port, keepalive: settings.keepaliveSeconds)
                } catch {
                    if health.problem != client.lastProblem {
                        logger.warning("\(error); trying again, every \(Int(backoff)) s at first, up to every 30 s")
                        health.problem = client.lastProblem
                        writeHealth()
                    }
                    retryAt = now + backoff
                    backoff = min(backoff * 2, 30)
                }
            }
            var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            fds.append(pollfd(fd: follower.descriptor, events: Int16(POLLIN), revents: 0))
            let socket = client.socket
            if socket >= 0 {
                fds.append(
                    pollfd(fd: socket, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            var timeout =
                socket >= 0
                ? Int32(settings.keepaliveSeconds * 1000) : Int32(max(0, (retryAt - Monotonic.seconds()) * 1000) + 1)
            if let due = (held.values.map(\.at) + [settlingUntil].compactMap { $0 }).min() {
                timeout = min(timeout, Int32(max(0, (due - Monotonic.seconds()) * 1000) + 1))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR {
                logger.critical("poll: \(String(cString: strerror(errno)))")
                return 1
            }
            if fds[0].revents != 0 {
                let signal = RV_signalfd_read(signals)
                if signal == SIGHUP {
                    logger.info("SIGHUP: publishing everything again")
                    published.removeAll()
                    republish = true
                } else if signal > 0 {
                    stop()
                    return 0
                }
            }
            // The keepalive's wake-up: while a limited app runs, its time left (and the day) again.
            var wanted: DaemonReads = ready == 0 && daemonUp && (!running.isEmpty || usageMoved) ? [.status, .apps] : []
            if socket >= 0 {
                let events = fds[2].revents
                var open = true
                if events & Int16(POLLIN | POLLERR | POLLHUP) != 0 { open = client.read() }
                if open && events & Int16(POLLOUT) != 0 { open = client.write() }
                if open { open = client.misc() }
                if !open {
                    // A connection that lasted starts the waits again from 1 s; a broker that drops
                    // each one at once is tried less and less often (and said less and less often).
                    let lasted = connectedAt.map { Monotonic.seconds() - $0 } ?? 0
                    if lasted >= Self.stableSeconds { backoff = 1 }
                    connectedAt = nil
                    logger.warning(
                        "\(client.lastProblem ?? "the connection to the broker ended"); connecting again in \(Int(backoff)) s"
                    )
                    availability = nil
                    connection(false, problem: client.lastProblem)
                    retryAt = Monotonic.seconds() + backoff
                    backoff = min(backoff * 2, 30)
                }
            }
            if client.takeJustConnected() {
                connectedAt = Monotonic.seconds()
                // What an earlier version left comes back first and is cleared before this
                // clock's state is published (`legacyRetained`): a second for the broker to say it.
                if !model.topics.legacyRetained.isEmpty { settlingUntil = Monotonic.seconds() + Self.settleSeconds }
                logger.info("connected to the broker at \(settings.host):\(settings.port)")
                for topic in model.topics.subscriptions { client.subscribe(topic) }
                connection(true, problem: nil)
                // The broker may have lost what it held: everything again, and what is gone cleared.
                availability = nil
                let held = published
                published = [:]
                for topic in held.keys { published[topic] = "" }
                wanted = daemonUp ? .all : []
                if !daemonUp { publishState() }
            }
            follow(follower.take(), wanted: &wanted)
            if health.daemonUp != daemonUp {
                health.daemonUp = daemonUp
                writeHealth()
            }
            let due = Monotonic.seconds()
            for (topic, entry) in held where entry.at <= due {
                held[topic] = nil
                wanted.formUnion(handle(entry.message))
            }
            for message in client.takeInbox() { wanted.formUnion(handle(message)) }
            let tooLarge = client.takeDroppedTooLarge()
            if tooLarge > 0 {
                noteIgnored(
                    "\(tooLarge) message(s) larger than \(MosquittoClient.maximumPacketSize) bytes", count: tooLarge)
            }
            if !refusals.isEmpty {
                // A refusal follows the event that caused it ("already snoozed" after `snoozed`):
                // the daemon wrote that event before its reply, and its follower posts it soon.
                var bell = pollfd(fd: follower.descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&bell, 1, 200) > 0 { follow(follower.take(), wanted: &wanted) }
            }
            let settled = settlingUntil.map { Monotonic.seconds() >= $0 } ?? false
            if !wanted.isEmpty { readDaemon(wanted) } else if republish || settled { publishState() }
            republish = false
            if client.connected {
                for event in events + refusals { client.publish(event) }
                if snapshot != nil && settlingUntil == nil {
                    for topic in leftovers.sorted() where published[topic] == nil {
                        logger.info("cleared \(topic), left by an earlier run: the clock no longer has it")
                        client.publish(Publication(topic, "", retain: true))
                    }
                    leftovers.removeAll()
                }
            }
            events.removeAll()
            refusals.removeAll()
        }
    }

    /// What the daemon's watch stream said: its coming and going, and its events (published after
    /// the state they change).
    private func follow(_ notes: [DaemonFollower.Note], wanted: inout DaemonReads) {
        for note in notes {
            switch note {
            case .up:
                if !daemonUp { logger.info("following reveilled at \(paths.socket)") }
                // A daemon that was away missed what the household said meanwhile, and a
                // restarted one forgot the others' counts: the broker gives them again.
                if !daemonUp, client.connected {
                    trust.takeNewestAgain()
                    for topic in model.topics.fromHousehold { client.subscribe(topic) }
                }
                daemonUp = true
                running.removeAll()
                snapshot = nil
                wanted = .all
            case .down:
                if daemonUp { logger.warning("reveilled went away; the clock shows as offline until it is back") }
                daemonUp = false
                publishState()
            case .line(let line):
                if let event = model.event(line.event, at: line.at, instant: line.instant) { events.append(event) }
                if case .appRunning(let app) = line.event {
                    let key = AppUsageKey(app: app.app, user: app.user)
                    if app.running { running.insert(key) } else { running.remove(key) }
                }
                wanted.formUnion(DaemonReads.after(line.event))
            }
        }
    }

    /// Decides, rate-limits and sends one inbound command; what to read from the daemon after it
    /// (the household's counts and the hub's words change no event; the rest the events say).
    private func handle(_ message: MosquittoClient.Message) -> DaemonReads {
        var payload = message.payload
        // A verified household message's number, taken once the daemon has it.
        var number: Int?
        switch trust.open(topic: message.topic, payload: message.payload, wallSeconds: Int(Wall.seconds())) {
        case .notHousehold:
            break
        case .echo, .repeated:
            return []
        case .ahead(let why):
            if held[message.topic] == nil {
                var state = householdIgnored["ahead"] ?? (0, -Double.infinity)
                noteIgnored("from the household: \(why)", state: &state)
                householdIgnored["ahead"] = state
            }
            held[message.topic] = (message, Monotonic.seconds() + Self.heldAheadSeconds)
            return []
        case .drop(let why):
            let kind = trust.isHubTopic(message.topic) ? message.topic : "counts"
            var state = householdIgnored[kind] ?? (0, -Double.infinity)
            noteIgnored("from the household: \(why)", state: &state)
            householdIgnored[kind] = state
            return []
        case .machines(let changed):
            keepSeen(message.topic)
            if changed {
                logger.info(
                    "the household's hub lists \(trust.machines.keys.sorted().joined(separator: ", ")): their counts are taken")
                // Counts heard before the list are asked for again: the broker retains them.
                if client.connected, let all = model.topics.householdUsage("+") { client.subscribe(all) }
            }
            return []
        case .body(let body, let n):
            payload = body
            number = n
        }
        switch model.inbound(topic: message.topic, payload: payload, snapshot: snapshot) {
        case .echo:
            return []
        case .ownRetained(let topic, let empty):
            if empty { leftovers.remove(topic) } else { leftovers.insert(topic) }
            return []
        case .legacyRetained(let topic, let empty):
            // Cleared at once, before this clock's own are published (its entities keep their ids).
            if !empty, client.connected {
                logger.info("cleared \(topic), left by an earlier version (before device ids)")
                client.publish(Publication(topic, "", retain: true))
            }
            return []
        case .ignore(let why):
            if let number { took(message.topic, number) }
            noteIgnored(why)
            return []
        case .send(let command, let what):
            let household = number != nil
            let now = Monotonic.seconds()
            let allowed =
                !household ? commands.take(now: now)
                : trust.isHubTopic(message.topic) ? hubMessages.take(now: now) : counts.take(now: now)
            guard allowed else {
                if household {
                    // Genuine and new: held, the newest per topic, and passed on when a token is back.
                    held[message.topic] = (message, now + 1)
                } else {
                    noteIgnored("a command: they come too fast (at most 5 at once, then 1 a second)", state: &tooFast)
                }
                return []
            }
            let reply = ask(command)
            if let number, reply.error?.code != .unavailable { took(message.topic, number) }
            if let error = reply.error, household {
                logger.notice("refused from the household: \(what): \(error.message)")
            } else if let error = reply.error {
                logger.notice("refused over MQTT: \(what): \(error.message)")
                if client.connected, refusedEvents.take(now: Monotonic.seconds()) {
                    refusals.append(model.refused(what, why: error.message))
                }
                // The entity shows the state that stands: published again below, whatever it was.
                for topic in published.keys where !topic.hasSuffix("/config") { published[topic] = "" }
                republish = true
            } else if !household {
                logger.info("done over MQTT: \(what)")
            } else if case .appsFromHub = command, let said = reply.message {
                logger.info("\(what): \(said)")
            }
            return household ? .apps : []
        }
    }

    /// The daemon has what a household message numbered `n` carried: the number is taken (and a
    /// member's hub numbers kept on disk).
    private func took(_ topic: String, _ n: Int) {
        trust.took(topic: topic, n: n)
        keepSeen(topic)
    }

    /// Says what was ignored: the first at once, then at most one line every `ignoredLogSeconds`,
    /// counting those left unsaid.
    private func noteIgnored(_ why: String, count: Int = 1) {
        noteIgnored(why, count: count, state: &ignored)
    }

    private func noteIgnored(_ why: String, count: Int = 1, state: inout (count: Int, loggedAt: Double)) {
        state.count += count
        let now = Monotonic.seconds()
        guard now - state.loggedAt >= Self.ignoredLogSeconds else { return }
        let others = state.count - count
        logger.notice("ignored: \(why)\(others > 0 ? " (and \(others) more ignored since the last such line)" : "")")
        state = (0, now)
    }

    /// Reads what `wanted` names of the clock's state (all of it when nothing was read yet), and
    /// publishes what changed.
    private func readDaemon(_ wanted: DaemonReads) {
        let previous = snapshot
        let reads = previous == nil ? DaemonReads.all : wanted
        guard let status = reads.contains(.status) ? ask(.status).status : previous?.status else { return }
        let alarms = reads.contains(.alarms) ? ask(.alarmList).alarms : nil
        let apps = reads.contains(.apps) ? ask(.appsOverview).apps : nil
        let requests = reads.contains(.requests) ? ask(.appRequests).appsReply?.requests : nil
        // The household's hub publishes its policy: the text `apps export` prints.
        let policy = model.topics.hub && reads.contains(.policy) ? ask(.appExport).appsReply?.text : nil
        let current = Snapshot(
            status: status, alarms: alarms ?? previous?.alarms ?? [], apps: apps ?? previous?.apps ?? [],
            requests: requests ?? previous?.requests ?? [], policyText: policy ?? previous?.policyText)
        if let policy, policy != previous?.policyText, model.hubPolicyMessage(policy) == nil {
            logger.warning(
                "the app policy is \(policy.utf8.count) bytes, more than the household's machines take (\(BridgeModel.maxPolicyBytes) as a message): not published; they keep the last one"
            )
        }
        snapshot = current
        // The first read after the daemon came (back): an app may have started before the bridge
        // followed, if any time was counted today; from then on the daemon says when one starts.
        let counted = { (snapshot: Snapshot) in snapshot.apps.reduce(0) { $0 + ($1.usedSecondsHere ?? 0) } }
        usageMoved = previous.map { counted($0) != counted(current) } ?? (counted(current) > 0)
        publishState()
    }

    private func publishState() {
        guard client.connected else { return }
        if let until = settlingUntil {
            guard Monotonic.seconds() >= until else { return }
            settlingUntil = nil
        }
        let wanted = daemonUp ? "online" : "offline"
        if availability != wanted {
            client.publish(Publication(model.topics.availability, wanted, retain: true))
            availability = wanted
        }
        guard let snapshot else { return }
        let state = model.retained(snapshot)
        for publication in BridgeModel.changes(from: published, to: state) { client.publish(sealed(publication)) }
        published = state
    }

    /// A household message of this machine's, signed; anything else as it is.
    private func sealed(_ publication: Publication) -> Publication {
        guard let key = householdKey, !publication.payload.isEmpty, model.topics.isSignedHousehold(publication.topic)
        else { return publication }
        let n = numbers.next(wallSeconds: Wall.seconds())
        if model.topics.hub && publication.topic != model.topics.householdUsage(model.topics.machine) {
            // The hub's numbers survive a restart: a member refuses a number lower than it took.
            writeSmall(paths.bridgeState + "/household.n", "\(n)\n")
        }
        var out = publication
        out.payload = HouseholdSeal.seal(topic: publication.topic, body: publication.payload, n: n, key: key)
        return out
    }

    /// A member keeps the numbers of the hub's messages it took, so that after a restart an older
    /// one replayed is still refused; written only when the hub said something new.
    private func keepSeen(_ topic: String) {
        guard trust.isHubTopic(topic), !model.topics.hub, let hub = trust.hubCode else { return }
        guard let text = CanonicalJSON.text(SeenFile(hub: hub, seen: trust.seen)) else { return }
        if text != lastSeenWritten {
            writeSmall(paths.bridgeState + "/household.seen", text)
            lastSeenWritten = text
        }
    }

    private var lastSeenWritten: String?

    private func writeSmall(_ path: String, _ text: String) {
        do {
            try RegularFile.replace(path, with: Array(text.utf8), mode: 0o600, durable: true)
        } catch {
            logger.warning("cannot write \(path): \(error)")
        }
    }

    /// What a member took from its hub: the hub's code, and the numbers per topic.
    struct SeenFile: Codable {
        var hub: String
        var seen: [String: Int]
    }

    static func readSeen(_ path: String, hubCode: String?) -> [String: Int] {
        guard let bytes = RegularFile.head(path, count: 4096),
            let file = try? JSONDecoder().decode(SeenFile.self, from: Data(bytes)), file.hub == hubCode
        else { return [:] }
        return file.seen
    }

    static func readNumber(_ path: String) -> Int {
        RegularFile.head(path, count: 32).flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingSpaces) } ?? 0
    }

    private func stop() {
        logger.info("stopping after \(daemonRequests) requests to reveilled: the clock shows as offline")
        if client.connected {
            client.publish(Publication(model.topics.availability, "offline", retain: true))
            client.disconnect()
        }
        health.stopped = true
        connection(false, problem: "reveille-mqtt stopped")
    }

    /// The connection began (`connected`) or ended (`problem`, why): said in the health file, with
    /// when the last connection ended.
    private func connection(_ connected: Bool, problem: String?) {
        let now = Wall.seconds()
        if health.connected && !connected { health.lastConnected = now }
        health.connected = connected
        health.since = now
        health.problem = problem
        writeHealth()
    }

    private func writeHealth() {
        let path = paths.bridgeHealth
        guard let data = try? JSONEncoder().encode(health) else { return }
        do {
            // The unit's StateDirectory; under a development root, made with its parents.
            try FileManager.default.createDirectory(
                atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
            try RegularFile.replace(path, with: Array(data))
        } catch {
            logger.warning("cannot write \(path): \(error)")
        }
    }

    /// One request to the daemon, counted (`requests`: what a press over MQTT costs).
    private func ask(_ command: Command) -> Response {
        daemonRequests += 1
        return Self.ask(command, socket: paths.socket)
    }

    /// One request on a connection of its own; the daemon's error, or ours when it cannot be reached.
    static func ask(_ command: Command, socket: String) -> Response {
        do {
            return try ControlClient(path: socket).send(command)
        } catch {
            return .failure(.unavailable, error.description)
        }
    }
}
