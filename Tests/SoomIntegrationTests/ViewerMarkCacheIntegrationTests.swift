import Foundation
import HummingbirdTesting
import PostgresNIO
import Testing

/// The viewers' kept marks (`ViewerMarkCache`) across two instances sharing one database: every
/// change to a viewer's marks, through either instance or behind both, reaches the other's memory
/// through migration 0014's triggers and the listener.
@Suite("Viewer marks cache against PostgreSQL")
struct ViewerMarkCacheIntegrationTests {
    static func page(_ client: some TestClientProtocol, _ token: String) async throws -> [[String: Any]] {
        try await FeedPageCacheIntegrationTests.page(client, token)
    }

    static func mark(_ client: some TestClientProtocol, _ token: String, _ card: String) async throws -> (liked: Bool, count: Int)? {
        guard let item = FeedPageCacheIntegrationTests.card(try await Self.page(client, token), card) else { return nil }
        return (item["likedByMe"] as? Bool ?? false, item["likeCount"] as? Int ?? -1)
    }

    @Test("likes, blocks and reports made on one instance, or in the database, reach the other's kept marks")
    func otherInstance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 0, feedCacheLifetime: 1, marksCacheLifetime: 300) { one, two, database in
            let tokens = try await database.makeAccounts(73)
            let (reader, author, other) = (tokens[0], tokens[1], tokens[2])
            let card = try await one.postCard(author, "처음").id
            let second = try await one.postCard(other, "둘째").id
            let readerID = try await one.accountID(reader)

            // The second instance keeps the reader's marks once its listener is on: a like written
            // with the triggers off (nobody is told) does not show there while the marks are kept.
            // Marks are kept from a kept page (the first read of a page brings its reader's marks
            // with it), and a page is kept for a second: on a loaded machine a try may miss that
            // second and see the like, hence the generous timeout.
            try await eventually("the second instance keeps the reader's marks", timeout: .seconds(30)) {
                _ = try await Self.mark(two, reader, card)
                _ = try await Self.mark(two, reader, card)
                try await database.execute(
                    PostgresQuery(
                        unsafeSQL: """
                            DO $$ BEGIN
                                ALTER TABLE likes DISABLE TRIGGER likes_marked;
                                INSERT INTO likes (card_id, account_id, created_at) VALUES ('\(card)', '\(readerID)', now());
                                UPDATE cards SET like_count = like_count + 1 WHERE id = '\(card)';
                                ALTER TABLE likes ENABLE TRIGGER likes_marked;
                            END $$
                            """))
                let kept = try await Self.mark(two, reader, card)
                try await database.execute("DELETE FROM likes WHERE card_id = \(UUID(uuidString: card)!)")
                try await database.execute("UPDATE cards SET like_count = 0 WHERE id = \(UUID(uuidString: card)!)")
                return kept?.liked == false
            }

            // Through the first instance: the reader's like and unlike, each with its count.
            _ = try await Self.mark(two, reader, card)
            #expect(try await one.send(.put, "/v1/cards/\(card)/like", token: reader).status == .ok)
            try await eventually("the like shows on the second instance", timeout: .seconds(2)) {
                try await Self.mark(two, reader, card).map { $0.liked && $0.count == 1 } == true
            }
            #expect(try await one.send(.delete, "/v1/cards/\(card)/like", token: reader).status == .ok)
            try await eventually("the unlike shows on the second instance", timeout: .seconds(2)) {
                try await Self.mark(two, reader, card).map { !$0.liked && $0.count == 0 } == true
            }

            // A block either way, made and undone.
            #expect(try await one.relate(author, "block", readerID).status == .ok)
            try await eventually("the author's block hides their card on the second instance", timeout: .seconds(2)) {
                try await Self.page(two, reader).map(\.id) == [second]
            }
            #expect(try await one.relate(author, "block", readerID, false).status == .ok)
            try await eventually("the unblock shows it again", timeout: .seconds(2)) {
                try await Self.page(two, reader).map(\.id) == [second, card]
            }

            // Behind both instances (an operator's psql), in one statement for more than 64
            // accounts: one notification empties every kept viewer's marks.
            let many = tokens.dropFirst(3)
            var ids: [UUID] = [UUID(uuidString: readerID)!]
            for token in many { ids.append(UUID(uuidString: try await one.accountID(token))!) }
            _ = try await Self.mark(two, reader, card)
            try await database.execute(
                "INSERT INTO likes (card_id, account_id, created_at) SELECT \(UUID(uuidString: card)!), id, now() FROM unnest(\(ids)::uuid[]) AS id")
            try await database.execute("UPDATE cards SET like_count = \(ids.count) WHERE id = \(UUID(uuidString: card)!)")
            try await eventually("the bulk like shows on the second instance", timeout: .seconds(2)) {
                try await Self.mark(two, reader, card).map { $0.liked && $0.count == ids.count } == true
            }

            // The reader's report of a card takes it off their pages.
            #expect(try await one.send(.post, "/v1/cards/\(second)/reports", json: ["reason": "other"], token: reader).status == .accepted)
            try await eventually("the report hides the card on the second instance", timeout: .seconds(2)) {
                try await Self.page(two, reader).map(\.id) == [card]
            }
        }
    }
}
