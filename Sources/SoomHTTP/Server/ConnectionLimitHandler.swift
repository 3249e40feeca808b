import NIOCore
import NIOHTTPTypes
import Synchronization

/// At most `limit` open connections per client address (an IPv4 address, or an IPv6 /64, as the
/// rate limits count): a client opening thousands of connections and trickling into each holds
/// the server's descriptors and memory; past the limit its new connections are closed at once.
/// Counts the TCP peer, so it is for a server that clients reach directly; behind a proxy every
/// connection comes from the proxy, which must bound them itself (`--trust-forwarded-for` turns
/// this off).
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    /// The open connections of every address, shared by all connections of one server.
    final class Counts: Sendable {
        let limit: Int
        private let counts = Mutex([ClientAddress: Int]())

        init(limit: Int) {
            self.limit = limit
        }

        /// Counts a new connection; false (and nothing counted) when the address has `limit` already.
        func open(_ address: ClientAddress) -> Bool {
            self.counts.withLock { counts in
                let open = counts[address, default: 0]
                guard open < self.limit else { return false }
                counts[address] = open + 1
                return true
            }
        }

        func close(_ address: ClientAddress) {
            self.counts.withLock { counts in
                let open = counts[address, default: 0]
                counts[address] = open > 1 ? open - 1 : nil
            }
        }

        func open(of address: ClientAddress) -> Int {
            self.counts.withLock { $0[address, default: 0] }
        }
    }

    private let counts: Counts
    private var counted: ClientAddress?

    init(counts: Counts) {
        self.counts = counts
    }

    private var checked = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.admit(context)
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !self.checked else { return }
        self.checked = true
        guard let peer = context.channel.remoteAddress?.ipAddress else { return }
        let address = ClientAddress(peer)
        if self.counts.open(address) {
            self.counted = address
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.release()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.release()
        context.fireChannelInactive()
    }

    private func release() {
        if let counted = self.counted {
            self.counts.close(counted)
            self.counted = nil
        }
    }
}
