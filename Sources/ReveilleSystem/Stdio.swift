import Glibc

/// Writing to standard output and standard error whole, as Foundation's `FileHandle` did (which
/// would link the whole of Foundation). A closed pipe or a full disk ends the writing quietly: the
/// program's exit code still says how it went.
public enum Stdio {
    public static func out(_ bytes: some Collection<UInt8>) { write(bytes, to: STDOUT_FILENO) }
    public static func err(_ bytes: some Collection<UInt8>) { write(bytes, to: STDERR_FILENO) }
    public static func out(_ text: String) { out(Array(text.utf8)) }
    public static func err(_ text: String) { err(Array(text.utf8)) }

    private static func write(_ bytes: some Collection<UInt8>, to fd: Int32) {
        let buffer = Array(bytes)
        var done = 0
        while done < buffer.count {
            let count = buffer[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            done += count
        }
    }
}
