import CALSA
import CSndFile

/// A failed alsa-lib or libsndfile call: which function, on what, and the library's own words.
public struct AudioError: Error, CustomStringConvertible, Sendable {
    /// The C function that failed, like `snd_pcm_open`.
    public let function: String
    /// The device or file it was called on.
    public let target: String
    /// A negative errno from alsa-lib, or libsndfile's error number.
    public let code: Int32
    public let message: String

    public init(_ function: String, target: String, code: Int32, message: String) {
        self.function = function
        self.target = target
        self.code = code
        self.message = message
    }

    /// An alsa-lib failure: `code` is the negative errno it returned.
    static func alsa(_ function: String, _ target: String, _ code: Int32) -> AudioError {
        AudioError(function, target: target, code: code, message: String(cString: snd_strerror(code)))
    }

    public var description: String { "\(target): \(message) (\(function))" }
}
