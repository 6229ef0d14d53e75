import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import ReveilleStore
import Synchronization

/// A `tag add` or `tag test` waiting for a tap: its connection is answered when a tag comes, or
/// when the deadline (monotonic seconds) passes.
struct TagWait {
    let connection: Int
    let operation: Command
    let purpose: String
    let timeout: Int
    let deadline: Double
}

/// NFC tags (docs/guide/devices.md, "NFC tags"): registration, listing, removal, `tag test`, and the first say on
/// a tap, which a waiting `tag add` or `tag test` takes unless an alarm is ringing.
final class TagRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let reader: any TagReader
    private let outlets: any Outlets
    private let logger: Logger
    /// A `tag add` or `tag test` waiting for a tap, which takes the next tag the reader sees.
    private(set) var wait: TagWait?

    init(controller: Controller, store: Store, reader: any TagReader, outlets: any Outlets, logger: Logger) {
        self.controller = controller
        self.store = store
        self.reader = reader
        self.outlets = outlets
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        switch request.command {
        case .tagAdd(let label, let uid?, _): return .answer(try addTag(label: label, uidText: uid, seen: nil))
        case .tagAdd, .tagTest: return try waitForTap(request)
        case .tagList:
            var response = Response()
            response.tags = try store.tags()
            return .answer(response)
        case .tagRemove:
            guard case .removeTag(let label) = request.judged?.edit else { throw misrouted(request.command) }
            return .answer(try removeTag(label))
        default: throw misrouted(request.command)
        }
    }

    /// A label a new tag may take: well formed, and not taken.
    private func checkNewLabel(_ label: String) throws {
        try Tag.checkLabel(label)
        if let existing = try store.tags().first(where: { $0.label == label }) {
            throw Refusal(
                .conflict,
                "a tag is already registered as \"\(label)\" (UID \(existing.uid)); pick another label or 'reveille tag rm \(label)' first"
            )
        }
    }

    /// Registers a tag by `--uid`, or by the UID `seen` on the reader.
    private func addTag(label: String, uidText: String?, seen: [UInt8]?) throws -> Response {
        try checkNewLabel(label)
        let uid: [UInt8]
        if let uidText {
            guard let parsed = UID.parse(uidText) else {
                throw InputError(
                    "--uid \"\(uidText)\": give the tag's UID as 4, 7 or 10 bytes of hex, like 04A1B2C3D4E5F6")
            }
            uid = parsed
        } else if let seen {
            uid = seen
        } else {
            throw Refusal(.internal, "tag add: no UID given or seen")
        }
        guard !UID.isRandom(uid) else {
            throw Refusal(
                .refused,
                "tag \(UID.hex(uid)) shows a random UID (a new one at every tap, as phones and some cards do); use a plain NFC sticker or card"
            )
        }
        let tag = Tag(label: label, uid: UID.hex(uid), addedAt: controller.nowSeconds())
        switch try store.insert(tag) {
        case .success:
            logger.notice("tag \"\(label)\" registered (UID \(tag.uid))")
            var response = Response(message: "registered tag \"\(label)\" (UID \(tag.uid))")
            response.tags = [tag]
            return response
        case .failure(.label(let existing)):
            throw Refusal(
                .conflict, "a tag is already registered as \"\(label)\" (UID \(existing.uid)); pick another label")
        case .failure(.uid(let existing)):
            throw Refusal(.conflict, "this tag (UID \(existing.uid)) is already registered as \"\(existing.label)\"")
        }
    }

    private func removeTag(_ label: String) throws -> Response {
        if let refusal = controller.view.refusal(for: .removeTag(label)) { throw Refusal(.busy, refusal.message) }
        guard let changed = try store.deleteTag(label: label) else {
            throw Refusal(.notFound, "no tag is registered as \"\(label)\"; see 'reveille tag list'")
        }
        var notes: [String] = []
        for alarm in changed {
            notes.append(
                alarm.tags.isEmpty
                    ? "alarm \(alarm.name) now takes any registered tag"
                    : "alarm \(alarm.name) still takes \(alarm.tags.joined(separator: ", "))")
        }
        logger.notice("tag \"\(label)\" removed")
        return Response(message: (["removed tag \"\(label)\""] + notes).joined(separator: "; "))
    }

    private func testTag(_ uid: [UInt8]) throws -> Response {
        let hex = UID.hex(uid)
        var response = Response()
        response.scan = TagScan(uid: hex, label: try store.tag(uid: hex)?.label, random: UID.isRandom(uid))
        return response
    }

    /// `tag add` without `--uid`, and `tag test`: checks what can be checked, then parks the
    /// request until a tag comes or the timeout passes (the answer goes out through the outlets).
    private func waitForTap(_ request: Asked) throws -> Handled {
        let timeout: Int
        let purpose: String
        switch request.command {
        case .tagAdd(let label, _, let seconds):
            try checkNewLabel(label)
            (timeout, purpose) = (seconds, "tag add")
        case .tagTest(let seconds): (timeout, purpose) = (seconds, "tag test")
        default: throw misrouted(request.command)
        }
        let health = reader.health
        if let refusal = health.tapRefusal { throw Refusal(.unavailable, refusal) }
        if let refusal = controller.view.refusal(for: .tagWait) { throw Refusal(.busy, refusal.message) }
        guard wait == nil else {
            throw Refusal(.busy, "another 'tag add' or 'tag test' is waiting for a tap; try again")
        }
        guard let connection = request.connection else {
            throw Refusal(.internal, "\(purpose) waits for a tap: it needs a connection to answer on")
        }
        wait = TagWait(
            connection: connection, operation: request.command, purpose: purpose, timeout: timeout,
            deadline: controller.clock.elapsed() + Double(timeout))
        reader.setPolling(purpose, true)
        logger.info("\(purpose): waiting up to \(timeout) s for a tag (reader \(health))")
        return .parked
    }

    /// The waiting `tag add`/`tag test` ran out of time (or its client left: `answer` false).
    func endWait(answer: Bool = true) {
        guard let wait else { return }
        finishWait(wait, uid: nil, answer: answer)
    }

    private func finishWait(_ wait: TagWait, uid: [UInt8]?, answer: Bool = true) {
        self.wait = nil
        reader.setPolling(wait.purpose, false)
        guard answer else { return }
        guard let uid else {
            let state = reader.health
            outlets.answer(
                wait.connection,
                .failure(
                    state.isHealthy ? .refused : .unavailable,
                    state.isHealthy
                        ? "no tag was placed on the reader within \(wait.timeout) s; hold it flat on the reader and try again"
                        : "the NFC reader is \(state); no tag could be read"))
            return
        }
        let response: Response
        do {
            switch wait.operation {
            case .tagAdd(let label, _, _): response = try addTag(label: label, uidText: nil, seen: uid)
            default: response = try testTag(uid)
            }
        } catch {
            response = Requests.response(to: error, for: wait.operation, logger: logger)
        }
        outlets.answer(wait.connection, response)
    }

    /// The reader saw a tag: a waiting `tag add`/`tag test` takes it (lying there or tapped),
    /// unless an alarm rang meanwhile: then the wait ends refused and the machine has the tap.
    /// Otherwise the clock machine decides what it does.
    func tagPlaced(_ uid: [UInt8], fresh: Bool) {
        if let wait {
            guard let refusal = controller.view.refusal(for: .tagWait) else {
                finishWait(wait, uid: uid)
                return
            }
            self.wait = nil
            reader.setPolling(wait.purpose, false)
            outlets.answer(wait.connection, .failure(.busy, refusal.message))
        }
        let hex = UID.hex(uid)
        let label: String?
        do {
            label = try store.tag(uid: hex)?.label
        } catch {
            logger.error("tag \(hex): cannot look it up: \(error)")
            return
        }
        controller.tagPlaced(uid: hex, label: label, fresh: fresh)
    }
}
