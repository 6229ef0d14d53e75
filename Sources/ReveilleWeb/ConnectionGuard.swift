import HummingbirdCore
import NIOCore
import Synchronization
import NIOHTTPTypes

/// The connections that have not yet sent a whole request head, oldest first. Past `limit` the
/// oldest is closed: 1,100 connections that each send half a header cannot use up the server's
/// descriptors, and a browser that sends its request at once is always served, however many
/// such connections an attacker opens. (Hummingbird's idle timeout closes each of them anyway
/// after `WebServer.idleSeconds`.)
final class UnfinishedConnections: Sendable {
    let limit: Int
    private let open = Mutex<(next: UInt64, channels: [UInt64: any Channel])>((0, [:]))

    init(limit: Int) {
        self.limit = limit
    }

    /// Registers a new connection; returns its number.
    func add(_ channel: any Channel) -> UInt64 {
        let (number, evicted) = open.withLock { state -> (UInt64, (any Channel)?) in
            state.next += 1
            state.channels[state.next] = channel
            guard state.channels.count > limit, let oldest = state.channels.keys.min() else { return (state.next, nil) }
            return (state.next, state.channels.removeValue(forKey: oldest))
        }
        evicted?.close(promise: nil)
        return number
    }

    /// The connection sent its request head, or went away.
    func remove(_ number: UInt64) {
        _ = open.withLock { $0.channels.removeValue(forKey: number) }
    }

    var count: Int { open.withLock { $0.channels.count } }
}

/// Tells `UnfinishedConnections` when a connection starts and when its first request head is in.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPUserEventHandler.InboundIn  // NIOHTTPTypes' HTTPRequestPart
    typealias InboundOut = HTTPUserEventHandler.InboundIn

    private let registry: UnfinishedConnections
    private var number: UInt64?

    init(registry: UnfinishedConnections) {
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        number = registry.add(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let number, case .head = unwrapInboundIn(data) {
            registry.remove(number)
            self.number = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let number { registry.remove(number) }
        number = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let number { registry.remove(number) }
        number = nil
    }
}
