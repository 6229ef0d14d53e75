import Foundation
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

/// NFC tags: registration, listing, removal, `tag test`, and what a tap does (README, "NFC tags").
extension Controller {
    func tagOperation(_ operation: Command) throws -> Response {
        switch operation {
        case .tagAdd(let label, let uid, _): try addTag(label: label, uidText: uid, seen: nil)
        case .tagList: tagList(try store.tags())
        case .tagRemove(let label): try removeTag(label)
        default: throw Refusal(.internal, "'\(operation.name)' waits for a tap: the control server parks it")
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

    private func tagList(_ tags: [Tag]) -> Response {
        var response = Response()
        response.tags = tags
        return response
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
        let tag = Tag(label: label, uid: UID.hex(uid), addedAt: nowSeconds())
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
        guard try store.deleteTag(label: label) else {
            throw Refusal(.notFound, "no tag is registered as \"\(label)\"; see 'reveille tag list'")
        }
        var notes: [String] = []
        for var alarm in try store.scheduleState().alarms where alarm.tags.contains(label) {
            alarm.tags.removeAll { $0 == label }
            _ = try store.update(alarm)
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
    /// request until a tag comes or the timeout passes. Returns the answer when it cannot wait,
    /// nil once parked (the answer goes out through `deliver`).
    func waitForTap(_ operation: Command, role: Role, connection: Int, refusal: () -> String) -> Response? {
        guard role >= operation.requiredRole else { return .failure(.forbidden, refusal()) }
        let timeout: Int
        let purpose: String
        switch operation {
        case .tagAdd(let label, _, let seconds):
            do {
                try checkNewLabel(label)
            } catch let error as Refusal {
                return .failure(error.code, error.message)
            } catch let error as InputError {
                return .failure(.invalid, error.message)
            } catch {
                return .failure(.internal, "could not \(operation.name): \(error)")
            }
            (timeout, purpose) = (seconds, "tag add")
        case .tagTest(let seconds): (timeout, purpose) = (seconds, "tag test")
        default: return .failure(.internal, "'\(operation.name)' does not wait for a tap")
        }
        guard (1...300).contains(timeout) else {
            return .failure(.invalid, "--timeout \(timeout): must be 1-300 seconds")
        }
        let health = ring.reader.health
        if let refusal = health.tapRefusal { return .failure(.unavailable, refusal) }
        // While an alarm rings or is snoozed, every tap is the sleeper's: a wait would swallow
        // the one that dismisses it.
        if let session = machine.session {
            return .failure(.busy, Self.tapsAreTheAlarms(session))
        }
        guard tagWait == nil else {
            return .failure(.busy, "another 'tag add' or 'tag test' is waiting for a tap; try again")
        }
        tagWait = TagWait(
            connection: connection, operation: operation, purpose: purpose, timeout: timeout,
            deadline: Controller.monotonic() + Double(timeout))
        ring.reader.setPolling(purpose, true)
        logger.info("\(purpose): waiting up to \(timeout) s for a tag (reader \(health))")
        return nil
    }

    static func tapsAreTheAlarms(_ session: RingSession) -> String {
        "alarm \(session.settings.name) is \(session.state == .snoozed ? "snoozed" : "ringing"): "
            + "a tap now is for it; try again once it is dismissed"
    }

    /// The waiting `tag add`/`tag test` ran out of time (or its client left: `answer` false).
    func endTagWait(answer: Bool = true) {
        guard let wait = tagWait else { return }
        finishTagWait(wait, uid: nil, answer: answer)
    }

    private func finishTagWait(_ wait: TagWait, uid: [UInt8]?, answer: Bool = true) {
        tagWait = nil
        ring.reader.setPolling(wait.purpose, false)
        guard answer else { return }
        guard let uid else {
            let state = ring.reader.health
            deliver(
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
        } catch let error as Refusal {
            response = .failure(error.code, error.message)
        } catch let error as InputError {
            response = .failure(.invalid, error.message)
        } catch {
            response = .failure(.internal, "could not \(wait.operation.name): \(error)")
        }
        deliver(wait.connection, response)
    }

    /// The reader saw a tag: a waiting `tag add`/`tag test` takes it (lying there or tapped),
    /// unless an alarm rang meanwhile: then the wait ends refused and the machine has the tap.
    /// Otherwise the clock machine decides what it does.
    func tagPlaced(_ uid: [UInt8], fresh: Bool) {
        if let wait = tagWait {
            guard let session = machine.session else {
                finishTagWait(wait, uid: uid)
                return
            }
            tagWait = nil
            ring.reader.setPolling(wait.purpose, false)
            deliver(wait.connection, .failure(.busy, Self.tapsAreTheAlarms(session)))
        }
        let hex = UID.hex(uid)
        let label: String?
        do {
            label = try store.tag(uid: hex)?.label
        } catch {
            logger.error("tag \(hex): cannot look it up: \(error)")
            return
        }
        carryOut(machine.tagPlaced(uid: hex, label: label, fresh: fresh, now: nowSeconds()))
    }

    func tagLifted() {
        carryOut(machine.tagLifted())
    }
}
