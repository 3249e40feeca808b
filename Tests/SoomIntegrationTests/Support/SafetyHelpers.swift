import Foundation
import HummingbirdTesting
import Testing

extension TestClientProtocol {
    /// `POST /v1/cards/{id}/reports` with `reason`.
    func report(_ token: String, _ cardID: String, reason: String = "abuse") async throws -> TestResponse {
        try await self.send(.post, "/v1/cards/\(cardID)/reports", json: ["reason": reason], token: token)
    }
}

extension TestDatabase {
    /// Cards whose `comment_count`, and accounts whose `card_count`, differ from a recount of the
    /// live (not hidden) cards they count: must be zero.
    func cardCountDrift() async throws -> Int {
        try await self.scalar(
            """
            SELECT ((SELECT count(*) FROM cards p
                     WHERE p.comment_count <> (SELECT count(*) FROM cards c WHERE c.parent_id = p.id AND c.hidden_at IS NULL))
                  + (SELECT count(*) FROM accounts a
                     WHERE a.card_count <> (SELECT count(*) FROM cards c
                                            WHERE c.author_id = a.id AND c.parent_id IS NULL AND c.hidden_at IS NULL)))::int
            """)
    }
}
