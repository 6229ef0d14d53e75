import Foundation
import ReveilleCore
import ReveilleNFC
import ReveilleProtocol
import ReveilleStore
import Synchronization

/// One `tag add` or `tag test` waiting for a tap: the reader's thread hands it the UID.
final class TagWaiter: @unchecked Sendable {
    private let condition = NSCondition()
    private var uid: [UInt8]?

    func deliver(_ uid: [UInt8]) {
        condition.lock()
        self.uid = uid
        condition.broadcast()
        condition.unlock()
    }

    func wait(seconds: Int) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(Double(seconds))
        condition.lock()
        defer { condition.unlock() }
        while uid == nil, condition.wait(until: deadline) {}
        return uid
    }
}

/// NFC tags: registration, listing, removal, `tag test`, and what a tap does (SPEC §5).
extension Controller {
    func tagOperation(_ operation: Command) throws -> Response {
        switch operation {
        case .tagAdd(let label, let uid, let timeout): try addTag(label: label, uidText: uid, timeout: timeout)
        case .tagList: tagList(try store.tags())
        case .tagRemove(let label): try removeTag(label)
        case .tagTest(let timeout): try testTag(timeout: timeout)
        default: Response()
        }
    }

    private func tagList(_ tags: [Tag]) -> Response {
        var response = Response()
        response.tags = tags
        return response
    }

    private func addTag(label: String, uidText: String?, timeout: Int) throws -> Response {
        try Tag.checkLabel(label)
        if let existing = try store.tags().first(where: { $0.label == label }) {
            throw Refusal(
                .conflict,
                "a tag is already registered as \"\(label)\" (UID \(existing.uid)); pick another label or 'reveille tag rm \(label)' first"
            )
        }
        let uid: [UInt8]
        if let uidText {
            guard let parsed = UID.parse(uidText) else {
                throw InputError(
                    "--uid \"\(uidText)\": give the tag's UID as 4, 7 or 10 bytes of hex, like 04A1B2C3D4E5F6")
            }
            uid = parsed
        } else {
            uid = try waitForTap(timeout: timeout, purpose: "tag add")
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

    private func testTag(timeout: Int) throws -> Response {
        let uid = try waitForTap(timeout: timeout, purpose: "tag test")
        let hex = UID.hex(uid)
        var response = Response()
        response.scan = TagScan(uid: hex, label: try store.tag(uid: hex)?.label, random: UID.isRandom(uid))
        return response
    }

    /// Polls the reader until a tag is placed or `timeout` seconds pass. Runs outside the lock.
    private func waitForTap(timeout: Int, purpose: String) throws -> [UInt8] {
        guard (1...300).contains(timeout) else { throw InputError("--timeout \(timeout): must be 1-300 seconds") }
        let health = ring.reader.health
        if health == .notConfigured {
            throw Refusal(
                .unavailable,
                "no NFC reader is configured: set [nfc] device in reveille.toml (see hardware.md), or give the tag's UID with --uid"
            )
        }
        let waiter = TagWaiter()
        let installed = tagWaiter.withLock { current -> Bool in
            guard current == nil else { return false }
            current = waiter
            return true
        }
        guard installed else { throw Refusal(.busy, "another 'tag add' or 'tag test' is waiting for a tap; try again") }
        ring.reader.setPolling(purpose, true)
        defer {
            ring.reader.setPolling(purpose, false)
            tagWaiter.withLock { $0 = nil }
        }
        logger.info("\(purpose): waiting up to \(timeout) s for a tag (reader \(health))")
        guard let uid = waiter.wait(seconds: timeout) else {
            let state = ring.reader.health
            throw Refusal(
                state.isHealthy ? .refused : .unavailable,
                state.isHealthy
                    ? "no tag was placed on the reader within \(timeout) s; hold it flat on the reader and try again"
                    : "the NFC reader is \(state); no tag could be read")
        }
        return uid
    }

    /// The reader saw a tag: a waiting `tag add`/`tag test` takes it; otherwise it may stop the
    /// ringing alarm. Called on the reader's thread.
    public func tagScanned(_ uid: [UInt8]) {
        let hex = UID.hex(uid)
        if let waiter = tagWaiter.withLock({ $0 }) {
            waiter.deliver(uid)
            return
        }
        lock.withLock { state in
            guard var session = state.session, session.state.isActive else {
                logger.info("tag \(hex) placed; nothing is ringing")
                return
            }
            let tag: Tag?
            do {
                tag = try store.tag(uid: hex)
            } catch {
                logger.error("tag \(hex): cannot look it up: \(error)")
                return
            }
            guard let tag else {
                logger.notice("tag \(hex) is not registered; alarm \(session.settings.name) rings on")
                return
            }
            do {
                let actions = try session.tag(tag.label, now: nowSeconds())
                logger.notice("alarm \(session.settings.name) dismissed by tag \"\(tag.label)\"")
                save(session, &state, actions)
            } catch let refusal as RingRefusal {
                logger.notice("tag \"\(tag.label)\": \(refusal.message)")
            } catch {
                logger.error("tag \"\(tag.label)\": \(error)")
            }
        }
        wake()
    }

    /// The reader's health changed: an alarm that only a tag could stop offers math while the
    /// reader is not working. Called on the reader's thread.
    public func readerHealthChanged(_ health: ReaderHealth) {
        guard !health.isHealthy else { return }
        lock.withLock { state in
            guard var session = state.session, session.readerLost() else { return }
            logger.warning(
                "NFC reader \(health) while alarm \(session.settings.name) rings; math dismisses it too now")
            save(session, &state, [])
        }
    }
}
