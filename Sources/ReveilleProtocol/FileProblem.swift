import FoundationEssentials
import Glibc

/// Why a file could not be read, in the words a person needs: the system's reason (`Permission
/// denied`), `no such file`, `not UTF-8 text`, else Foundation's description.
public enum FileProblem {
    public static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError {
            // Foundation keeps the system's errno under this key ("NSUnderlyingErrorKey").
            if let underlying = error.userInfo["NSUnderlyingError"] as? POSIXError {
                return String(cString: strerror(underlying.code.rawValue))
            }
            switch error.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadInapplicableStringEncoding: return "not UTF-8 text"
            default: break
            }
        }
        if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
        return "\(error)"
    }
}
