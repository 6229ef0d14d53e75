import Foundation

/// Why a file could not be read, in the words a person needs: the system's reason (`Permission
/// denied`), `no such file`, `not UTF-8 text`, else Foundation's description.
public enum FileProblem {
    public static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadInapplicableStringEncodingError {
            return "not UTF-8 text"
        }
        return nsError.localizedDescription
    }
}
