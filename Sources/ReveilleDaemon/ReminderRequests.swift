import FoundationEssentials
import Glibc
import Logging
import ReveilleCore
import ReveilleLaunch
import ReveilleProtocol
import ReveilleStore

/// `reminder add|list|rm|edit` (docs/guide/reminders.md, "Reminders").
final class ReminderRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let sounds: SoundCheck
    private let logger: Logger

    init(controller: Controller, store: Store, sounds: SoundCheck, logger: Logger) {
        self.controller = controller
        self.store = store
        self.sounds = sounds
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        if case .chimeAgain(let key) = request.command {
            return .answer(try again(key, role: request.role, peer: request.peer))
        }
        return .answer(try respond(to: request.command))
    }

    /// "Again in 10 minutes": a chime played lately, once more (`Chime.again`), kept in the state
    /// so that a restart keeps it. The household asks for any chime; a person with no rights here,
    /// for their own.
    private func again(_ key: String?, role: Role, peer: Peer?) throws -> Response {
        let chime = controller.view.playedChime(key: key)
        guard let chime else {
            throw Refusal(
                .notFound,
                key == nil
                    ? "no reminder chimed lately" : "that chime is not one of the last played; add a reminder instead")
        }
        if role < .user {
            guard let peer, let person = chime.person, ProcessOwner.name(of: peer.uid) == person else {
                throw Refusal(.forbidden, "'reminder again' is for the household, or for the person the chime is for")
            }
        }
        let copy = try controller.chimeAgain(chime, after: nil)
        return Response(
            message:
                "\"\(chime.text)\" chimes again at \(controller.view.localTime(copy.instant)), in \(Chime.againSeconds / 60) minutes"
        )
    }

    private func respond(to operation: Command) throws -> Response {
        switch operation {
        case .reminderList:
            var response = Response()
            let state = try controller.currentState()
            let (view, now) = (controller.view, controller.nowSeconds())
            response.reminders = state.reminders.map { view.reminderInfo($0, in: state, after: now) }
            return response
        case .reminderAdd(let spec):
            guard let text = spec.text, spec.time != nil else {
                throw InputError(
                    "a reminder needs its text and a time, like: reveille reminder add \"check-in\" --at 16:00")
            }
            var reminder = Reminder(id: 0, text: text, time: LocalTime.midnight, repeats: .weekly(.daily))
            try apply(spec, to: &reminder, isNew: true)
            reminder = try store.insert(reminder)
            logger.info("reminder \(reminder.name) added: \(describe(reminder))")
            return try reminderResponse(reminder, "added reminder \(reminder.name): \(describe(reminder))")
        case .reminderEdit(let id, let spec):
            var reminder = try existingReminder(id)
            try apply(spec, to: &reminder, isNew: false)
            guard try store.update(reminder) else { throw noReminder(id) }
            logger.info("reminder \(reminder.name) changed: \(describe(reminder))")
            return try reminderResponse(reminder, "changed reminder \(reminder.name): \(describe(reminder))")
        case .reminderRemove(let id):
            let reminder = try existingReminder(id)
            guard try store.deleteReminder(id: id) else { throw noReminder(id) }
            logger.info("reminder \(reminder.name) removed")
            return Response(message: "removed reminder \(reminder.name)")
        case .remindersSwitch(let on):
            try store.setReminders(on: on)
            logger.notice("reminders switched \(on ? "on" : "off")")
            return Response(
                message: on
                    ? "reminders are on"
                    : "reminders are off: none chimes until 'reveille reminders on' (alarms are not touched)")
        default: throw misrouted(operation)
        }
    }

    /// `16:00 mon,wed,fri, then 2h later` or `17:00 once on 2026-12-05`.
    private func describe(_ reminder: Reminder) -> String {
        var text =
            switch reminder.repeats {
            case .weekly(let days): "\(reminder.time) \(days)"
            case .once(let date): "\(reminder.time) once on \(date)"
            }
        for followUp in reminder.followUps {
            text += ", then \(Reminder.after(followUp.afterSeconds)) later \"\(followUp.text)\""
        }
        if let unless = reminder.unless { text += ", unless \(unless)" }
        if let person = reminder.person { text += ", for \(person)" }
        return reminder.enabled ? text : text + " (disabled)"
    }

    private func reminderResponse(_ reminder: Reminder, _ message: String) throws -> Response {
        let state = try controller.currentState()
        let info = controller.view.reminderInfo(reminder, in: state, after: controller.nowSeconds())
        var response = Response(message: message + (info.next.map { "; next chime \($0)" } ?? ""))
        if reminder.enabled && info.next == nil {
            response.warnings = ["it will not chime again: its date is past, or pause or an override silences it"]
        }
        response.reminders = [info]
        return response
    }

    /// Applies `spec` (`ReminderSpec.apply`), with the sounds the daemon can play.
    private func apply(_ spec: ReminderSpec, to reminder: inout Reminder, isNew: Bool) throws {
        try spec.apply(to: &reminder, isNew: isNew, now: controller.specNow()) { try sounds.check($0) }
        if let person = reminder.person { try Self.checkUser(person) }
    }

    /// A person a reminder or a calendar is for is a user of this machine.
    static func checkUser(_ name: String) throws {
        guard getpwnam(name) != nil else {
            throw InputError("--for \(name): no such user on this machine (see 'getent passwd')")
        }
    }

    private func existingReminder(_ id: Int) throws -> Reminder {
        guard let reminder = try store.reminder(id: id) else { throw noReminder(id) }
        return reminder
    }

    private func noReminder(_ id: Int) -> Refusal {
        Refusal(.notFound, "no reminder #\(id); 'reveille reminder list' shows the ids")
    }
}
