import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import SoomData
import SoomDomain
import Testing

/// The contract's *Location privacy*: a poster's exact position is never stored, logged or
/// derivable. Played as an attacker would, against the real server and PostgreSQL.
@Suite("Location privacy against PostgreSQL")
struct LocationPrivacyTests {
    /// Two points about 900 m apart in one cell of Seoul (geohash `wydm9q`: 37.56226–37.56775 N,
    /// 126.96899–126.97998 E), each about 450 m from its centre.
    static let home = (latitude: 37.5629123, longitude: 126.9701234)
    static let neighbour = (latitude: 37.5671987, longitude: 126.9789876)

    /// What a nearby query shows of one card: absent, or present with its distance band.
    static func observation(_ items: [[String: Any]], card: String) -> Int? {
        guard let item = items.first(where: { $0["id"] as? String == card }) else { return nil }
        return (item["distanceMeters"] as? NSNumber)?.intValue ?? -1
    }

    @Test("an attacker querying from 400 points at every radius sees two cards of one cell identically, and learns only the cell")
    func trilateration() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let cell = GeoCell(containing: try GeoLocation(latitude: Self.home.latitude, longitude: Self.home.longitude))
            #expect(cell == GeoCell(containing: try GeoLocation(latitude: Self.neighbour.latitude, longitude: Self.neighbour.longitude)))
            let home =
                try await client.postCard(
                    tokens[0], "집", extra: ["location": ["latitude": Self.home.latitude, "longitude": Self.home.longitude]])["id"] as! String
            let neighbour =
                try await client.postCard(
                    tokens[0], "이웃", extra: ["location": ["latitude": Self.neighbour.latitude, "longitude": Self.neighbour.longitude]])["id"]
                as! String

            // Query points on a 20 × 20 grid 4 km wide around the home, every radius each.
            var consistent: [(Double, Double)] = []
            var observations: [(latitude: Double, longitude: Double, radius: Int, band: Int?)] = []
            for row in 0..<20 {
                for column in 0..<20 {
                    let latitude = Self.home.latitude + (Double(row) - 9.5) * 0.0018
                    let longitude = Self.home.longitude + (Double(column) - 9.5) * 0.0023
                    for radius in [1, 5] where (row + column) % 2 == 0 || radius == 1 {
                        let page = try await client.send(
                            .get, "/v1/feeds/nearby?latitude=\(latitude)&longitude=\(longitude)&radiusKm=\(radius)&limit=50", token: tokens[1])
                        try #require(page.status == .ok)
                        let items = try #require(try page.object["items"] as? [[String: Any]])
                        let seen = Self.observation(items, card: home)
                        // Indistinguishable: the other card in the cell looks exactly the same from here.
                        #expect(seen == Self.observation(items, card: neighbour), "from \(latitude),\(longitude) r=\(radius)")
                        if let seen { #expect(seen >= 100 && (seen < 1000 ? seen % 100 == 0 : seen % 1000 == 0), "band \(seen)") }
                        observations.append((latitude, longitude, radius, seen))
                    }
                }
            }
            #expect(observations.contains { $0.band != nil } && observations.contains { $0.band == nil })

            // The attacker's best estimate: of the candidate positions on a 20 m grid, those that
            // explain the most observations (the cell's centre explains all of them). The true
            // homes are no closer to that estimate than the cell's own size allows.
            var best = Int.max
            for step in 0..<(100 * 100) {
                let latitude = Self.home.latitude + (Double(step / 100) - 49.5) * 0.00018
                let longitude = Self.home.longitude + (Double(step % 100) - 49.5) * 0.000227
                let misses = observations.count { observation in
                    let metres = Self.haversine(observation.latitude, observation.longitude, latitude, longitude)
                    let band = metres <= Double(observation.radius) * 1000 ? DistanceBand.metres(metres) : nil
                    return band != observation.band
                }
                if misses < best { (best, consistent) = (misses, []) }
                if misses == best { consistent.append((latitude, longitude)) }
            }
            try #require(!consistent.isEmpty)
            let estimate = (
                latitude: consistent.map(\.0).reduce(0, +) / Double(consistent.count),
                longitude: consistent.map(\.1).reduce(0, +) / Double(consistent.count)
            )
            // What the attacker finds is the cell's centre…
            #expect(Self.haversine(estimate.latitude, estimate.longitude, cell.latitude, cell.longitude) < 100)
            // …which is hundreds of metres from where either card was posted.
            #expect(Self.haversine(estimate.latitude, estimate.longitude, Self.home.latitude, Self.home.longitude) > 200)
            #expect(Self.haversine(estimate.latitude, estimate.longitude, Self.neighbour.latitude, Self.neighbour.longitude) > 200)
        }
    }

    @Test("distances are bands to the cell centre: whole 100 m under 1 km, whole km above, never under 100")
    func bands() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let card =
                try await client.postCard(
                    token, "여기", extra: ["location": ["latitude": Self.home.latitude, "longitude": Self.home.longitude]])["id"] as! String
            let cell = GeoCell(containing: try GeoLocation(latitude: Self.home.latitude, longitude: Self.home.longitude))
            for (latitude, longitude) in [
                (cell.latitude, cell.longitude), (Self.home.latitude, Self.home.longitude), (37.5665, 126.9780), (37.5400, 126.9500),
                (37.5000, 127.0200),
            ] {
                let items = try await client.allPages("/v1/feeds/nearby?latitude=\(latitude)&longitude=\(longitude)&radiusKm=10", token: token)
                let shown = try #require(Self.observation(items, card: card))
                let exact = Self.haversine(latitude, longitude, cell.latitude, cell.longitude)
                #expect(shown == DistanceBand.metres(exact), "from \(latitude),\(longitude): \(exact) m shown as \(shown)")
            }
            // From the centre itself: 100, never 0.
            let atCentre = try await client.allPages(
                "/v1/feeds/nearby?latitude=\(cell.latitude)&longitude=\(cell.longitude)&radiusKm=1", token: token)
            #expect(Self.observation(atCentre, card: card) == 100)
        }
    }

    @Test("a dump of the database after posting holds no trace of the exact coordinates, Idempotency-Key records included")
    func databaseDump() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let points = [(37.5678912, 126.9781234), (35.1796543, 129.0756789), (-33.8567844, 151.2152967)]
            for (index, point) in points.enumerated() {
                try await client.postCard(
                    token, "장소 \(index)", extra: ["location": ["latitude": point.0, "longitude": point.1]], key: "place-\(index)")
                _ = try await client.send(.get, "/v1/feeds/nearby?latitude=\(point.0)&longitude=\(point.1)&radiusKm=1", token: token)
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE geo_cell IS NOT NULL") == 3)
            let dump = try database.dump()
            #expect(dump.contains("CREATE TABLE public.cards") && dump.contains("장소 2"))
            for (latitude, longitude) in points {
                // Four decimals (about 10 m) of either value would already be too much.
                for value in [latitude, longitude] {
                    let digits = String(format: "%.4f", value)
                    #expect(!dump.contains(digits), "\(digits) in the dump")
                }
            }
        }
    }

    @Test("the migration turns stored points into cells and leaves no exact value in the table's file")
    func migration() async throws {
        let logger = Logger(label: "soom-test")
        try await withEmptyDatabase(logger: logger) { configuration in
            let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
            let running = Task { await client.run() }
            defer { running.cancel() }
            let all = try Migration.bundled()
            _ = try await Migrator(client: client, migrations: all.filter { $0.version <= 9 }, logger: logger).migrate()
            let database = TestDatabase(configuration: configuration)
            let account = UUID()
            try await database.execute(
                """
                INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                VALUES (\(account), decode(repeat('ab', 32), 'hex'), 'key', '옛사람', '옛사람', now())
                """)
            let exact = (latitude: 37.5678912345, longitude: 126.9781234567)
            for index in 0..<3 {
                try await database.execute(
                    """
                    INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, latitude, longitude, created_at)
                    VALUES (\(UUID()), \(account), \("옛 카드 \(index)"), 'default', 'default', 'sky-dawn', \(exact.latitude), \(exact.longitude), now())
                    """)
            }
            try await database.execute(
                """
                INSERT INTO idempotency_keys (account_id, key, request, card_id, created_at)
                VALUES (\(account), 'k', \("-\u{1F}default\u{1F}default:sky-dawn\u{1F}card\u{1F}\(exact.latitude),\(exact.longitude)\u{1F}\u{1F}x"), \(UUID()), now())
                """)

            _ = try await Migrator(client: client, migrations: all, logger: logger).migrate()
            let cell = GeoCell(containing: try GeoLocation(latitude: exact.latitude, longitude: exact.longitude))
            let rows = try await database.rows("SELECT geo_cell, geo_latitude, geo_longitude FROM cards")
            #expect(rows.count == 3)
            for row in rows {
                let (key, latitude, longitude) = try row.decode((String, Double, Double).self)
                #expect(key == cell.key && abs(latitude - cell.latitude) < 1e-9 && abs(longitude - cell.longitude) < 1e-9)
            }
            #expect(
                try await database.scalar(
                    "SELECT count(*)::int FROM information_schema.columns WHERE table_name = 'cards' AND column_name IN ('latitude', 'longitude')")
                    == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM idempotency_keys") == 0)
            // The table's file on disk (its current version, after the rewrite, written out by a
            // checkpoint): no float8 of the exact values.
            try await database.execute("CHECKPOINT")
            let file = try await database.rows("SELECT pg_read_binary_file(pg_relation_filepath('cards'))")[0].decode(ByteBuffer.self)
            let bytes = Array(file.readableBytesView)
            for value in [exact.latitude, exact.longitude] {
                let needle = withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) }
                let found = Self.contains(bytes, needle)
                #expect(!found, "\(value) is still in the table's file")
            }
            let readsTheRightFile = Self.contains(bytes, Array("옛 카드 1".utf8))
            #expect(readsTheRightFile)
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }

    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let a = pow(sin((lat2 - lat1) * radians / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin((lon2 - lon1) * radians / 2), 2)
        return 2 * GeoCell.earthRadius * asin(min(1, sqrt(a)))
    }
}
