import Foundation
import PostgresNIO
import SoomDomain
import Testing

/// The nearby feed as it is served with the feed cache on (pages made from shared chunks, read by
/// `NearbyStatements.Chunks`) against its definition, on real PostgreSQL: ties in time, hidden
/// cards, expired stories and located comment cards included.
@Suite("Nearby feed from shared chunks, on PostgreSQL")
struct NearbyChunkIntegrationTests {
    static let seoul = (latitude: 37.5665, longitude: 126.9780)

    struct Inserted {
        let id: UUID
        let micros: Int64
        let cell: GeoCell
        let shown: Bool
    }

    @Test(
        "every radius, walked to the end through cursors with the cache on, is exactly the live top-level cards whose cell centre is in reach, newest first"
    )
    func walk() async throws {
        try await withTestApp(feedCacheLifetime: 1) { client, database in
            let token = try await database.makeAccounts(1)[0]
            let author = try await database.rows("SELECT id FROM accounts LIMIT 1").first!.decode(UUID.self)
            let base: Int64 = 1_700_000_000_000_000
            var inserted: [Inserted] = []
            var parent: UUID?
            for index in 0..<300 {
                // Spread evenly (golden ratio and angle), dense in the centre.
                let reach = (Double(index) * 0.618_033_988_7).truncatingRemainder(dividingBy: 1)
                let angle = Double(index) * 2.399_963
                let distance = reach * reach * 0.5
                let cell = GeoCell(
                    containing: try GeoLocation(
                        latitude: Self.seoul.latitude + distance * sin(angle), longitude: Self.seoul.longitude + distance * cos(angle) * 1.26))
                let kind = index % 20  // 0: hidden, 1: expired story, 2: a comment card; the rest shown
                let id = UUID()
                let micros = base + Int64(index / 3) * 1_000
                // With the author's card count in the same statement: the app's story-expiry
                // sweep, which decrements it, may run at any moment.
                try await database.execute(
                    """
                    WITH inserted AS (
                        INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, geo_cell, geo_latitude, geo_longitude,
                                           created_at, hidden_at, expires_at, parent_id)
                        VALUES (\(id), \(author), \("가까이 \(index)"), 'default', 'default', 'sky-dawn', \(cell.key), \(cell.latitude), \(cell.longitude),
                                timestamptz 'epoch' + \(micros)::int8 * interval '1 microsecond',
                                \(kind == 0 ? Date() : nil), \(kind == 1 ? Date().addingTimeInterval(-60) : nil), \(kind == 2 ? parent : nil))
                        RETURNING author_id, parent_id, hidden_at)
                    UPDATE accounts SET card_count = card_count + 1
                    WHERE id = (SELECT author_id FROM inserted WHERE parent_id IS NULL AND hidden_at IS NULL)
                    """)
                if parent == nil { parent = id }
                inserted.append(Inserted(id: id, micros: micros, cell: cell, shown: kind > 2 || (kind == 2 && parent == id)))
            }
            for (latitude, longitude) in [(37.5665, 126.9780), (37.60, 127.05), (37.45, 126.80)] {
                for radius in NearbyRadius.allCases {
                    let expected = inserted.filter(\.shown)
                        .map { ($0, NearbyCover.haversine(latitude, longitude, $0.cell.latitude, $0.cell.longitude)) }
                        .filter { $0.1 <= radius.metres }
                        .sorted {
                            FeedPosition(createdAtMicros: $0.0.micros, id: $0.0.id).precedes(FeedPosition(createdAtMicros: $1.0.micros, id: $1.0.id))
                        }
                    let path = "/v1/feeds/nearby?latitude=\(latitude)&longitude=\(longitude)&radiusKm=\(radius.rawValue)"
                    for limit in [6, 20] {
                        let items = try await client.allPages(path, token: token, limit: limit)
                        #expect(
                            items.map { ($0["id"] as! String).lowercased() } == expected.map { $0.0.id.uuidString.lowercased() },
                            "\(path) limit \(limit)")
                        #expect(items.map { $0["distanceMeters"] as? Int } == expected.map { DistanceBand.metres($0.1) }, "\(path) limit \(limit)")
                    }
                }
            }
        }
    }
}
