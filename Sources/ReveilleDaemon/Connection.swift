import Foundation
import Glibc
import Logging
import ReveilleProtocol

/// One client connection, served on its own thread: read a line, answer it, until the client
/// closes, goes quiet, or sends more than a line may hold.
struct Connection {
    let fd: Int32
    let peer: Peer
    let role: Role
    let access: PeerAccess
    let controller: Controller
    let logger: Logger

    /// How long a client may stay silent before it is let go.
    static let idleTimeoutSeconds = 60

    func serve() {
        defer { close(fd) }
        setTimeout(SO_RCVTIMEO, seconds: Connection.idleTimeoutSeconds)
        setTimeout(SO_SNDTIMEO, seconds: 10)
        var buffer = LineBuffer()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }  // closed, timed out, or reset
            buffer.append(chunk[..<count])
            do {
                while let line = try buffer.nextLine() {
                    guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
                    guard reply(answer(line)) else { return }
                }
            } catch {
                logger.notice("\(peer): request longer than \(Framing.maxLineBytes) bytes; disconnecting")
                _ = reply(
                    .failure(
                        .tooLarge,
                        "request too large: a request is one line of at most \(Framing.maxLineBytes) bytes"))
                drainAndClose()
                return
            }
        }
    }

    /// Decodes and carries out one request line. Anything a client can send gets an error reply.
    func answer(_ line: [UInt8]) -> Response {
        let data = Data(line)
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
            return .failure(
                .badRequest,
                #"malformed request: not a JSON object; send one JSON request per line, like {"v":1,"op":{"status":{}}}"#
            )
        }
        guard let version = envelope.v else {
            return .failure(.badRequest, "malformed request: missing protocol version \"v\" (this daemon speaks 1)")
        }
        guard version == protocolVersion else {
            return .failure(
                .unsupportedVersion,
                "protocol version \(version) is not supported; this reveilled speaks version \(protocolVersion)")
        }
        let request: Request
        do {
            request = try JSONDecoder().decode(Request.self, from: data)
        } catch {
            return Connection.explain(error, in: data)
        }
        let response = controller.handle(request.op, role: role, peer: peer) {
            access.refusal(request.op, role: role, peer: peer)
        }
        if let error = response.error {
            let level: Logger.Level = error.code == .forbidden ? .notice : .info
            logger.log(level: level, "\(peer) '\(request.op.name)': \(error.code.rawValue): \(error.message)")
        } else {
            logger.debug("\(peer) '\(request.op.name)': ok")
        }
        return response
    }

    /// Sends a response line; false when the client is gone.
    private func reply(_ response: Response) -> Bool {
        let bytes = Framing.encode(response)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// After refusing an oversized line: stop sending, read and drop what the client is still
    /// writing (briefly), so that it can read our error instead of a reset.
    private func drainAndClose() {
        shutdown(fd, Int32(SHUT_WR))
        setTimeout(SO_RCVTIMEO, seconds: 1)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var total = 0
        while total < 64 * 1024 * 1024 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            total += count
        }
    }

    private func setTimeout(_ option: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private struct Envelope: Decodable {
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
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let name = (object?["op"] as? [String: Any])?.keys.sorted().joined(separator: ",") ?? "?"
            return .failure(
                .badRequest, "malformed request: unknown operation \"\(name)\"; update reveille and reveilled together")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return .failure(.badRequest, "malformed request: field \"\(path(context.codingPath))\" has the wrong type")
        default:
            return .failure(.badRequest, "malformed request: \(error)")
        }
    }
}
