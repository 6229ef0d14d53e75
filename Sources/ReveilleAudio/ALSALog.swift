import CALSAShims
import Logging
import Synchronization

/// Sends alsa-lib's own error printing (by default straight to stderr) into the daemon's log.
public enum ALSALog {
    private static let logger = Mutex<Logger?>(nil)

    /// Routes every later alsa-lib message to `logger` at debug level: the daemon logs each
    /// failure it acts on itself, with what it does next; alsa-lib's lines add the detail.
    /// Calls snd_lib_error_set_handler through RV_alsa_route_errors.
    public static func route(to logger: Logger) {
        Self.logger.withLock { $0 = logger }
        _ = RV_alsa_route_errors { file, line, function, err, message in
            guard let message else { return }
            let text = String(cString: message)
            let place = function.map { String(cString: $0) } ?? file.map { String(cString: $0) } ?? "alsa-lib"
            ALSALog.logger.withLock { logger in
                logger?.debug("alsa-lib \(place):\(line): \(text)\(err == 0 ? "" : " (error \(err))")")
            }
        }
    }
}
