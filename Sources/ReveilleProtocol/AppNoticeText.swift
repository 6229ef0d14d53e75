/// The words for app notices and requests, one wording wherever they show: `status --watch`, the
/// notifier's desktop notifications, `apps requests` (docs/guide/apps.md, "A child's side").
public enum AppNoticeText {
    public static func title(_ notice: AppNotice) -> String {
        switch notice.kind {
        case .timeLeft:
            let minutes = notice.minutesLeft ?? 0
            return "\(notice.app): \(minutes) minute\(minutes == 1 ? "" : "s") left"
        case .denied: return "\(notice.app) cannot start now"
        }
    }

    public static func body(_ notice: AppNotice) -> String {
        switch notice.kind {
        case .timeLeft: "It is ended then; \(notice.reason). Save your work."
        case .denied: notice.reason
        }
    }

    public static func line(_ notice: AppNotice) -> String {
        "\(notice.user): \(title(notice)) (\(notice.reason))"
    }

    public static func title(_ request: AppRequestInfo) -> String {
        switch request.state {
        case .waiting: "\(request.user) asks for \(request.minutes) more minutes of \(request.app)"
        case .approved: "\(request.minutes) more minutes of \(request.app): approved"
        case .refused: "\(request.minutes) more minutes of \(request.app): refused"
        }
    }

    public static func line(_ request: AppRequestInfo) -> String {
        var text = "request #\(request.id): \(title(request))"
        if let why = request.why { text += " (\"\(why)\")" }
        if let who = request.answeredBy, request.state != .waiting { text += " by \(who)" }
        if request.state == .approved { text += " for \(request.user), today" }
        return text
    }
}
