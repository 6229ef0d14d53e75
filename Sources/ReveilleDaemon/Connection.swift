import FoundationEssentials
import Glibc
import Logging
import ReveilleProtocol
import ReveilleSystem

/// One client connection, served on the event loop: bytes in, lines out, nothing blocks. A
/// client that goes quiet for a minute is let go; one that sends more than a line may hold gets an
/// error, and what it still writes is read and dropped for a second so that it can read the error.
final class Connection {
    enum Phase {
        /// Reading requests.
        case serving
        /// A request waits for a tap or a sound device: further lines wait their turn.
        case parked
        /// Streaming `watch` events.
        case watching
        /// Refused an oversized line: output shut, input drained until `until`.
        case draining(until: Double)
    }

    let id: Int
    /// The accepted socket, closed when the connection goes (the server drops it and the loop
    /// lets go of its handler).
    let socket: Descriptor
    var fd: Int32 { socket.raw }
    let peer: Peer
    let role: Role
    var phase = Phase.serving
    /// A watcher who hears only events about this user (one with no rights here).
    var watchesOnly: String?
    var input = LineBuffer()
    var output: [UInt8] = []
    /// Monotonic seconds of the last byte received.
    var lastHeard: Double
    /// Bytes dropped while draining.
    var drained = 0
    /// The client closed its side: drop the connection once the output is sent.
    var closing = false
    /// Since when (monotonic seconds) part of a line has waited for the rest, if any does.
    var partialSince: Double?
    /// The epoll events asked for now (readable at first).
    var interest = EventLoop.readable

    /// How long a client may stay silent before it is let go.
    static let idleTimeoutSeconds = 60.0
    /// How long a request line may take to arrive whole, from its first byte.
    static let lineTimeoutSeconds = 10.0
    /// Past this much unsent reply, the connection's requests wait (and its input is not read)
    /// until the client reads: a client that pipelines without reading cannot grow the daemon.
    static let maxUnsentBytes = 256 * 1024
    /// Past this much received but unanswered input, nothing more is read from the socket (the
    /// client's writes then block in its own kernel buffer).
    static let maxBufferedInput = 2 * Framing.maxLineBytes
    /// A watcher that stops reading is dropped past this much unsent output.
    static let maxWatchBacklog = 4 * 1024 * 1024

    init(id: Int, socket: Descriptor, peer: Peer, role: Role, now: Double) {
        self.id = id
        self.socket = socket
        self.peer = peer
        self.role = role
        self.lastHeard = now
    }

    /// When the loop must look at this connection again on its own (monotonic seconds), if ever.
    var deadline: Double? {
        switch phase {
        case .serving:
            min(lastHeard + Connection.idleTimeoutSeconds, (partialSince ?? .infinity) + Connection.lineTimeoutSeconds)
        case .draining(let until): until
        case .parked, .watching: nil
        }
    }

    /// Whether more input may be read now: not while the replies or the requests already here
    /// are waiting for the client or for their turn.
    var mayRead: Bool {
        if closing { return false }
        if case .draining = phase { return true }
        return output.count <= Connection.maxUnsentBytes && input.pendingCount < Connection.maxBufferedInput
    }

    /// The epoll events this connection needs now.
    var wantedEvents: UInt32 {
        (mayRead ? EventLoop.readable : 0) | (output.isEmpty ? 0 : EventLoop.writable)
    }

    /// Reads what is there, up to `maxBufferedInput`. Returns false when the client closed or the
    /// connection failed.
    func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while mayRead {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            guard count > 0 else { return false }
            if case .draining = phase {
                drained += count
                if drained > 64 * 1024 * 1024 { return false }
            } else {
                input.append(chunk[..<count])
            }
        }
        return true
    }

    /// Queues a line and sends what the socket takes now. Returns false when the client is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        output += bytes
        return flush()
    }

    /// Sends queued output until the socket would block. Returns false when the client is gone.
    func flush() -> Bool {
        var offset = 0
        defer { output.removeFirst(offset) }
        while offset < output.count {
            let sent = output[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK
            }
            offset += sent
        }
        return true
    }

    /// Decodes one request line: the request, or the error reply it gets.
    static func decode(_ line: [UInt8]) -> Result<Request, ReplyError> {
        let data = Data(line)
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
            return .failure(
                ReplyError(
                    .failure(
                        .badRequest,
                        #"malformed request: not a JSON object; send one JSON request per line, like {"v":1,"op":{"status":{}}}"#
                    )))
        }
        guard let version = envelope.v else {
            return .failure(
                ReplyError(
                    .failure(.badRequest, "malformed request: missing protocol version \"v\" (this daemon speaks 1)")))
        }
        guard version == protocolVersion else {
            return .failure(
                ReplyError(
                    .failure(
                        .unsupportedVersion,
                        "protocol version \(version) is not supported; this reveilled speaks version \(protocolVersion)"
                    )))
        }
        do {
            return .success(try JSONDecoder().decode(Request.self, from: data))
        } catch {
            return .failure(ReplyError(Connection.explain(error, in: data)))
        }
    }

    /// An error reply, carried as an error.
    struct ReplyError: Error {
        let response: Response
        init(_ response: Response) { self.response = response }
    }

    fileprivate struct Envelope: Decodable {
        let v: Int?
    }

    /// A decoding error as an error reply a person can read: which field, what is wrong.
    static func explain(_ error: any Error, in data: Data) -> Response {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .dataCorrupted(let context) where context.codingPath.count > 2:
            // A value our own types refused, with their message: `time "25:00": hour must be 0-23`.
            return .failure(.invalid, context.debugDescription)
        case .keyNotFound(let key, let context) where context.codingPath.isEmpty:
            return .failure(.badRequest, "malformed request: missing field \"\(key.stringValue)\"")
        case .keyNotFound(let key, let context):
            return .failure(.badRequest, "malformed request: missing field \"\(path(context.codingPath + [key]))\"")
        case .typeMismatch(_, let context) where context.codingPath.count <= 1,
            .dataCorrupted(let context) where context.codingPath.count <= 2:
            let name = (try? JSONDecoder().decode(OperationNames.self, from: data))?.names.joined(separator: ",") ?? "?"
            return .failure(
                .badRequest, "malformed request: unknown operation \"\(name)\"; update reveille and reveilled together")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return .failure(.badRequest, "malformed request: field \"\(path(context.codingPath))\" has the wrong type")
        default:
            return .failure(.badRequest, "malformed request: \(error)")
        }
    }
}

/// The keys of a request's `op` object, whatever their values: the name of an operation this
/// version does not know.
private struct OperationNames: Decodable {
    let names: [String]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let request = try decoder.container(keyedBy: Key.self)
        names = try request.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: "op")).allKeys.map(
            \.stringValue
        )
        .sorted()
    }
}
