/// A problem in a configuration file, placed at its line: `reveille.toml:7: [audio] volume 150: must be 0-100`.
public struct ConfigError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    /// 1-based; nil when the problem is the file as a whole.
    public let line: Int?
    public let message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)" }
}
