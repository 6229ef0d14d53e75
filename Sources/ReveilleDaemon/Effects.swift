import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// Carries out the clock machine's actions, in order, deciding nothing: the sound, the reader's
/// polling, hooks, the voice, what the store keeps, the wake timer and the watchers.
///
/// Confined to the loop's thread, like `Controller`.
final class Effects {
    let ring: RingEnvironment
    let store: Store
    let hooks: HookRunner
    let outlets: any Outlets
    let logger: Logger
    /// The instant the wake timer was last armed at (wall-clock seconds).
    private(set) var armedWake: Int?

    init(ring: RingEnvironment, store: Store, outlets: any Outlets, logger: Logger) {
        self.ring = ring
        self.store = store
        self.outlets = outlets
        self.logger = logger
        hooks = HookRunner(directory: ring.hooksDirectory, logger: logger)
    }

    /// Does what the machine asked; `view` words what watchers are told.
    func carryOut(_ actions: [ClockAction], view: ReadModel) {
        outlets.decided(actions)
        for action in actions {
            switch action {
            case .play(let settings): ring.audio.play(.ring(settings))
            case .stopSound: ring.audio.stop()
            case .attenuate(let lower): ring.audio.setAttenuated(lower)
            case .escalate: ring.audio.escalate()
            case .pollReader(let on): ring.reader.setPolling("ring", on)
            case .runHook(let event, let session): hooks.run(event, for: session)
            case .persist(let sessions, let through):
                do {
                    try store.record(sessions, evaluatedThrough: through)
                } catch {
                    logger.error("could not save the ring state: \(error); it goes on in memory")
                }
            case .withdrawMissed(let ids):
                do {
                    try store.withdrawMissed(ids)
                } catch {
                    logger.error("could not withdraw missed records \(ids): \(error); the history keeps them")
                }
            case .disableAlarm(let id): disableOneShot(id)
            case .purge(let before): purge(before: before)
            case .removeOverride(let id):
                do {
                    _ = try store.deleteOverride(id: id)  // false: already gone, as asked
                } catch {
                    logger.error("could not remove override #\(id): \(error); a holiday keeps it silent all the same")
                }
            case .keepHeldRings(let held):
                do {
                    try store.setHeldRings(held)
                } catch {
                    logger.error(
                        "could not save the committed rings a holiday does not silence: \(error); they stand until the daemon stops"
                    )
                }
            case .say(let text): ring.voice.say(text)
            case .warningTone: ring.audio.play(.warningTone)
            case .appWarningHook(let app, let user, let left):
                hooks.run(
                    .appWarning,
                    environment: [
                        "REVEILLE_EVENT": HookEvent.appWarning.rawValue, "REVEILLE_APP": app, "REVEILLE_USER": user,
                        "REVEILLE_SECONDS_LEFT": String(left),
                    ])
            case .lead(let sunrise):
                hooks.run(
                    .lead,
                    environment: [
                        "REVEILLE_EVENT": HookEvent.lead.rawValue, "REVEILLE_ALARM_ID": String(sunrise.alarmID),
                        "REVEILLE_ALARM_LABEL": sunrise.label, "REVEILLE_SCHEDULED_AT": String(sunrise.ringsAt),
                        "REVEILLE_LEAD_SECONDS": String(sunrise.ringsAt - sunrise.startsAt),
                    ])
            case .leadSound(let settings): ring.audio.play(.lead(settings))
            case .log(let level, let text): logger.log(level: Logger.Level(level), "\(text)")
            case .publish(let change): outlets.publish(view.event(change))
            case .wake(let instant):
                armedWake = instant
                outlets.armWake(at: instant)
            case .chime(let chime): ring.audio.play(.chime(chime, volume: ring.defaultVolume))
            case .checkChime(let chime):
                let report = outlets.chimeChecked
                hooks.check(chime.unless ?? "false", for: chime.text) { skip, detail in
                    report(chime.key, skip, detail)
                }
            case .chimeHook(let chime):
                var environment = [
                    "REVEILLE_EVENT": HookEvent.chime.rawValue, "REVEILLE_TEXT": chime.text,
                    "REVEILLE_ORIGIN": chime.origin, "REVEILLE_SCHEDULED_AT": String(chime.instant),
                    "REVEILLE_CHIME_KEY": chime.key,
                ]
                environment["REVEILLE_BODY"] = chime.detail
                environment["REVEILLE_LOCATION"] = chime.location
                environment["REVEILLE_PERSON"] = chime.person
                hooks.run(.chime, environment: environment)
            case .recordChime(let chime, let outcome, let at):
                do {
                    try store.record(chime: chime, outcome: outcome, at: at)
                } catch {
                    logger.error("could not keep that reminder \"\(chime.text)\" was \(outcome.rawValue): \(error)")
                }
            }
        }
    }

    private func disableOneShot(_ id: Int) {
        do {
            guard var alarm = try store.alarm(id: id), alarm.enabled else { return }
            alarm.enabled = false
            _ = try store.update(alarm)
            logger.info("one-shot alarm \(alarm.name) has rung; it is now disabled")
        } catch {
            logger.error("could not turn one-shot alarm #\(id) off: \(error)")
        }
    }

    /// The machine has judged the days before `before`: their overrides go, and one-shots that
    /// never rang are turned off.
    private func purge(before: CivilDate) {
        do {
            let purged = try store.purgeOverrides(before: before)
            if purged > 0 { logger.info("purged \(purged) past date override(s)") }
            for alarm in try store.disableOneShots(before: before) {
                // One that rang was turned off when it was dismissed: this one never rang.
                guard case .once(let date) = alarm.repeats else { continue }
                logger.notice(
                    "alarm \(alarm.name): its day (\(date)) is over and it did not ring (missed, paused or silenced by a rule or override); turned off"
                )
            }
        } catch {
            logger.error("could not purge the days before \(before): \(error); trying again at the next look")
        }
    }
}

extension Logger.Level {
    init(_ level: LogLevel) {
        switch level {
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        }
    }
}
