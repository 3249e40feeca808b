import Foundation
import HummingbirdTesting
import Testing

extension TestClientProtocol {
    /// The caller's account id, from `GET /v1/me`.
    func accountID(_ token: String) async throws -> String {
        let response = try await self.send(.get, "/v1/me", token: token)
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        return try response.object.id
    }

    /// `PUT` or `DELETE` of `/v1/users/{id}/{relation}` (follow or block); returns the response.
    func relate(_ token: String, _ relation: String, _ id: String, _ on: Bool = true) async throws -> TestResponse {
        try await self.send(on ? .put : .delete, "/v1/users/\(id)/\(relation)", token: token)
    }

    /// The caller's notifications (all pages), newest first.
    func notifications(_ token: String, unread: Bool = false) async throws -> [[String: Any]] {
        try await self.allPages(unread ? "/v1/notifications?unread=true" : "/v1/notifications", token: token, limit: 2)
    }
}

extension TestDatabase {
    /// Accounts whose stored follower or following count differs from a recount of `follows`.
    func followDrift() async throws -> Int {
        try await self.scalar(
            """
            SELECT count(*)::int FROM accounts a
            WHERE a.follower_count <> (SELECT count(*) FROM follows WHERE followee_id = a.id)
               OR a.following_count <> (SELECT count(*) FROM follows WHERE follower_id = a.id)
            """)
    }
}
