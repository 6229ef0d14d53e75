import CMosquitto
import Glibc

/// One client of the broker through libmosquitto, driven by the caller's own poll loop
/// (`socket`, `wantsWrite`, `read`, `write`, `misc`): no thread of libmosquitto's, and no wake-up
/// beyond the keepalive. MQTT 3.1.1: libmosquitto 2.0's own parser of MQTT 5 properties aborts the
/// process on an identifier it does not know (`log__printf(NULL, …)` in `property__read`, an
/// assertion), which any broker can send. What a broker sends is bounded here instead: a packet
/// that claims more than `readHeadroom` is refused before it is allocated, and a message larger
/// than `maximumPacketSize` is dropped unread.
final class MosquittoClient {
    struct Message {
        var topic: String
        var payload: [UInt8]
    }

    /// Set by libmosquitto's callbacks, read by the loop after each call into it.
    private(set) var connected = false
    /// The broker's refusal or why the connection ended, for the log and `reveille doctor`.
    private(set) var lastProblem: String?
    /// Messages received since the loop last took them.
    private var inbox: [Message] = []
    /// Set by the connect callback: the loop subscribes and publishes everything again.
    private var justConnected = false

    private let handle: OpaquePointer
    /// The largest message the bridge takes: a command is a few bytes, a household machine's
    /// counts a few kilobytes; anything bigger is dropped (and counted) without being copied.
    static let maximumPacketSize = UInt32(BridgeModel.maxCountsBytes + 512)
    /// How much more memory one read from the broker may take: libmosquitto allocates a packet
    /// (and then its payload again) at the length the packet claims.
    static let readHeadroom: UInt = 24 << 20
    /// Messages dropped for their size since the loop last asked.
    private(set) var droppedTooLarge = 0

    /// Opens libmosquitto (it is never linked: see CMosquitto) and sets it up.
    static func setUpLibrary() throws(BridgeError) {
        guard RV_mosquitto_open() == 0 else { throw BridgeError(String(cString: RV_mosquitto_problem())) }
        mosquitto_lib_init()
    }

    init(clientID: String) throws(BridgeError) {
        guard let handle = mosquitto_new(clientID, true, nil) else {
            throw BridgeError("libmosquitto could not make a client: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, object, code in
            let client = Unmanaged<MosquittoClient>.fromOpaque(object!).takeUnretainedValue()
            if code == 0 {
                client.connected = true
                client.justConnected = true
                client.lastProblem = nil
            } else {
                client.lastProblem =
                    "the broker refused the connection: \(String(cString: mosquitto_connack_string(code)))"
            }
        }
        mosquitto_disconnect_callback_set(handle) { _, object, code in
            let client = Unmanaged<MosquittoClient>.fromOpaque(object!).takeUnretainedValue()
            client.connected = false
            if code != 0 && client.lastProblem == nil {
                client.lastProblem = "the connection was lost: \(String(cString: mosquitto_strerror(code)))"
            }
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            let client = Unmanaged<MosquittoClient>.fromOpaque(object!).takeUnretainedValue()
            guard let message = message?.pointee, let topic = message.topic else { return }
            let count = Int(message.payloadlen)
            guard count <= Int(MosquittoClient.maximumPacketSize) else {
                client.droppedTooLarge += 1
                return
            }
            let bytes =
                count > 0 && message.payload != nil
                ? Array(UnsafeRawBufferPointer(start: message.payload, count: count)) : []
            // At most 64 waiting: a flood between two turns of the loop loses its tail, never memory.
            if client.inbox.count < 64 { client.inbox.append(Message(topic: String(cString: topic), payload: bytes)) }
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    func configure(username: String?, password: String?, caFile: String?, will: Publication) throws(BridgeError) {
        if let username {
            try check("the username and password", mosquitto_username_pw_set(handle, username, password))
        }
        if let caFile {
            try check("the CA file \(caFile)", mosquitto_tls_set(handle, caFile, nil, nil, nil, nil))
        }
        try check(
            "the last will",
            mosquitto_will_set(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, will.retain))
    }

    /// Connects (name resolution, TCP, TLS's handshake, then CONNECT): blocking, as libmosquitto
    /// does it. The socket is then made non-blocking, so that a broker that stalls mid-packet
    /// never holds the loop.
    func connect(host: String, port: Int, keepalive: Int) throws(BridgeError) {
        lastProblem = nil
        let code = mosquitto_connect_bind(handle, host, Int32(port), Int32(keepalive), nil)
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            let why =
                code == MOSQ_ERR_ERRNO.rawValue
                ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(code))
            lastProblem = "cannot reach the broker at \(host):\(port): \(why)"
            throw BridgeError(lastProblem!)
        }
        let fd = mosquitto_socket(handle)
        if fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    /// The connection's socket, or -1.
    var socket: Int32 { mosquitto_socket(handle) }
    var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Reads what the broker sent; false when the connection ended.
    func read() -> Bool { settle(RV_mosquitto_loop_read_bounded(handle, Self.readHeadroom)) }
    func write() -> Bool { settle(mosquitto_loop_write(handle, 1)) }
    /// Keepalive pings, and the end of a connection whose pings went unanswered.
    func misc() -> Bool { settle(mosquitto_loop_misc(handle)) }

    private func settle(_ code: Int32) -> Bool {
        guard code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue && connected else {
            if lastProblem == nil {
                let why =
                    code == MOSQ_ERR_ERRNO.rawValue
                    ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(code))
                lastProblem = "the connection to the broker ended: \(why)"
            }
            connected = false
            if mosquitto_socket(handle) >= 0 { mosquitto_disconnect(handle) }
            return false
        }
        return true
    }

    /// Whether the connection was (re)made since the last call.
    func takeJustConnected() -> Bool {
        defer { justConnected = false }
        return justConnected
    }

    func takeDroppedTooLarge() -> Int {
        defer { droppedTooLarge = 0 }
        return droppedTooLarge
    }

    func takeInbox() -> [Message] {
        defer { inbox.removeAll(keepingCapacity: true) }
        return inbox
    }

    func subscribe(_ topic: String) {
        mosquitto_subscribe(handle, nil, topic, 1)
    }

    func publish(_ publication: Publication) {
        let bytes = Array(publication.payload.utf8)
        mosquitto_publish(handle, nil, publication.topic, Int32(bytes.count), bytes, 1, publication.retain)
    }

    func disconnect() {
        mosquitto_disconnect(handle)
        // The DISCONNECT packet goes out with the queue.
        while mosquitto_want_write(handle) && mosquitto_loop_write(handle, 1) == MOSQ_ERR_SUCCESS.rawValue {}
    }

    private func check(_ what: String, _ code: Int32) throws(BridgeError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw BridgeError("libmosquitto refused \(what): \(String(cString: mosquitto_strerror(code)))")
        }
    }
}

/// Why the bridge cannot do something, in words for its log.
public struct BridgeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
