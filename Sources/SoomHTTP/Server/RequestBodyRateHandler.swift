import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// A request body must keep arriving: once the server has waited `grace` in all for a body's
/// bytes, the body must have come at `minimumRate` bytes a second or more over that waiting time,
/// or the request fails with `RequestBodyTooSlow` (`408 request_timeout`) and the connection
/// closes. The idle timeout alone does not bound a body: a client sending a byte every 25 seconds
/// is never idle for 60, and could hold a connection and its buffers for ever.
///
/// Only the time the server spends *waiting for the client* counts: from a read the server asks
/// for until the next body part arrives. While the server is busy and reads nothing (back
/// pressure), the clock stops, so a slow handler never makes a fast client look slow.
final class RequestBodyRateHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Bytes a second, averaged over the waiting time: 5 MiB in under an hour and a half.
    static let minimumRate = 1_000

    private let grace: TimeAmount
    private let minimumRate: Int
    /// Between a request head and its end.
    private var inBody = false
    private var bytes = 0
    /// Waiting time of this body so far, not counting a wait still open.
    private var waited = TimeAmount.zero
    /// When the open wait began: a read was asked for and no body part has come since.
    private var waitingSince: NIODeadline?
    private var check: RepeatedTask?
    private var failed = false

    /// - Parameter grace: waiting for the client this long before the rate is judged (a phone's
    ///   radio waking up; 10 seconds in production).
    init(grace: TimeAmount, minimumRate: Int = RequestBodyRateHandler.minimumRate) {
        self.grace = grace
        self.minimumRate = minimumRate
    }

    /// Checks the rate a tenth of the grace apart, only while a body is awaited: a request without
    /// a body (its head and end arrive together) never starts the clock.
    private func startChecking(_ context: ChannelHandlerContext) {
        guard self.check == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let interval = TimeAmount.milliseconds(max(100, self.grace.nanoseconds / 1_000_000 / 10))
        self.check = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (handler, context) = loopBound.value
            handler.judge(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.check?.cancel()
        self.check = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.check?.cancel()
        self.check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head:
            self.inBody = true
            self.bytes = 0
            self.waited = .zero
            self.waitingSince = nil
        case .body(let buffer):
            self.bytes += buffer.readableBytes
            self.endWait()
        case .end:
            self.inBody = false
            self.waitingSince = nil
            self.check?.cancel()
            self.check = nil
        }
        guard !self.failed else { return }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if self.inBody, self.waitingSince == nil {
            self.waitingSince = .now()
            self.startChecking(context)
        }
        context.read()
    }

    private func endWait() {
        if let since = self.waitingSince {
            self.waited = self.waited + (NIODeadline.now() - since)
            self.waitingSince = nil
        }
    }

    private func judge(context: ChannelHandlerContext) {
        guard self.inBody, !self.failed else { return }
        let waited = self.waited + (self.waitingSince.map { NIODeadline.now() - $0 } ?? .zero)
        guard waited >= self.grace else { return }
        let seconds = Double(waited.nanoseconds) / 1e9
        guard Double(self.bytes) < Double(self.minimumRate) * seconds else { return }
        // The request's handler reads the error from its body and answers 408; the connection
        // closes once that answer is written (or after a second if it never is).
        self.failed = true
        context.fireErrorCaught(RequestBodyTooSlow())
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .seconds(1)) { loopBound.value.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard self.failed, case .end = self.unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenComplete { _ in loopBound.value.close(promise: nil) }
        context.write(data, promise: written)
    }
}

/// A request body that stopped arriving at a usable rate (`RequestBodyRateHandler`).
public struct RequestBodyTooSlow: Error, Sendable {}
