import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose first request head has not arrived within `timeout` of the
/// connection opening: a client that connects and sends nothing, or trickles its headers a byte
/// at a time, holds a connection and its memory for at most this long.
///
/// After the first request Hummingbird's idle timeout takes over (`AppConfiguration.idleTimeout`):
/// it counts activity only when a whole request head or body part arrives, so a connection idle
/// between requests, or trickling the next head, is closed once that much time has passed.
final class RequestHeadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?
    private var headArrived = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.schedule(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.schedule(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = self.unwrapInboundIn(data) {
            self.headArrived = true
            self.scheduled?.cancel()
            self.scheduled = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.scheduled?.cancel()
        self.scheduled = nil
    }

    private func schedule(_ context: ChannelHandlerContext) {
        guard self.scheduled == nil, !self.headArrived else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        self.scheduled = context.eventLoop.scheduleTask(in: self.timeout) {
            loopBound.value.close(promise: nil)
        }
    }
}
