/// Input that a person or a client got wrong: the message says what, to what, and how to fix it.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
