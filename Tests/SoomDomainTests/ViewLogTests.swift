import Foundation
import Testing

@testable import SoomDomain

@Suite("View log")
struct ViewLogTests {
    @Test("pairs are noted once each, owners' own opens not at all; take empties the log; a failed batch goes back")
    func notesAndTakes() {
        let log = ViewLog()
        let (card, author, reader, other) = (UUID(), UUID(), UUID(), UUID())
        log.viewed(card: card, author: author, by: reader)
        log.viewed(card: card, author: author, by: reader)
        log.viewed(card: card, author: author, by: author)
        log.visited(profile: author, by: other)
        log.visited(profile: author, by: author)
        let batch = log.take()
        #expect(batch.cardViews == [ViewLog.Pair(target: card, reader: reader)])
        #expect(batch.profileVisits == [ViewLog.Pair(target: author, reader: other)])
        #expect(log.take().isEmpty)
        log.putBack(batch)
        #expect(log.take() == batch)
    }

    @Test("a full log drops new pairs and says how many")
    func capacity() {
        let log = ViewLog(capacity: 2)
        for _ in 0..<5 { log.viewed(card: UUID(), author: UUID(), by: UUID()) }
        #expect(log.take().cardViews.count == 2)
        #expect(log.dropped == 3)
    }
}
