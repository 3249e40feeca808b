import Foundation
import NIOCore
import PostgresNIO
import SoomDomain

/// `ImageStore` in the `images` table: simple to run, transactional with everything else, and
/// fine for pictures of at most 5 MiB. An object store can replace it behind the same protocol.
public struct PostgresImageStore: ImageStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func save(_ image: StoredImage, bytes: consuming [UInt8], within quota: UploadQuota) async throws -> ImageSaving {
        // The bytes are copied once, into the statement's bindings, and let go before it is sent.
        let insert: PostgresQuery = """
            INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, width, height, created_at)
            VALUES (\(image.id), \(image.ownerID), \(image.format.contentType), \(image.byteCount), decode(\(image.sha256), 'hex'),
                    \(Bytea(bytes: consume bytes)), \(image.width), \(image.height), \(image.createdAt))
            """
        let since = image.createdAt.addingTimeInterval(-quota.window)
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            // The owner's row orders one account's uploads (accounts first, as every writer locks): each
            // counts the ones committed before it. An account withdrawn meanwhile makes the insert fail.
            try await connection.query("SELECT 1 FROM accounts WHERE id = \(image.ownerID) FOR NO KEY UPDATE", logger: logger)
            // Over the quota: the newest upload of the window whose bytes, with those of every newer one
            // and this one, pass the quota must age out first (index-only, `images_owner_created_idx`).
            let rows = try await connection.query(
                """
                SELECT created_at FROM (
                    SELECT created_at, sum(byte_count) OVER (ORDER BY created_at DESC, id) AS newer FROM images
                    WHERE owner_id = \(image.ownerID) AND created_at > \(since)) window_uploads
                WHERE newer + \(image.byteCount) > \(quota.bytes)
                ORDER BY created_at DESC LIMIT 1
                """, logger: logger
            ).collect()
            if let oldest = try rows.first.map({ try RowCells.decode($0, Date.self) }) {
                return .overQuota(retryAt: oldest.addingTimeInterval(quota.window))
            }
            try await connection.query(insert, logger: logger)
            return .stored
        }
    }

    public func load(id: UUID, unlessDigestIn knownDigests: [String]) async throws -> ImageLoad? {
        // One round trip either way; when a digest matches, the CASE never reads the (TOASTed) bytes.
        let any = knownDigests.contains("*")
        let digests = knownDigests.filter { $0 != "*" }.map { $0.lowercased() }
        let rows = try await self.database.rows(
            """
            SELECT owner_id, content_type, byte_count, encode(sha256, 'hex'), width, height, created_at, matched,
                   CASE WHEN matched THEN NULL ELSE bytes END
            FROM (SELECT *, (\(any) OR encode(sha256, 'hex') = ANY (\(digests)::text[])) AS matched FROM images WHERE id = \(id) AND bytes IS NOT NULL) i
            """)
        guard let row = rows.first else { return nil }
        let (owner, contentType, byteCount, sha256, width, height, createdAt, matched, bytes) = try RowCells.decode(
            row, UUID.self, String.self, Int.self, String.self, Int?.self, Int?.self, Date.self, Bool.self, ByteBuffer?.self)
        guard let format = ImageFormat(contentType: contentType) else { return nil }
        let image = StoredImage(
            id: id, ownerID: owner, format: format, byteCount: byteCount, sha256: sha256, width: width, height: height,
            createdAt: createdAt)
        if matched { return .notModified(image) }
        guard let bytes else { return nil }
        return .found(image, bytes: Array(bytes.readableBytesView))
    }

    public func purgeUnused(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        // SKIP LOCKED: a post that is using an image holds a KEY SHARE lock on its row
        // (`CardStatements.Insert`), and other instances' rounds take other rows.
        let rows = try await self.database.rows(
            """
            WITH unused AS (
                SELECT i.id FROM images i
                WHERE i.created_at < \(cutoff)
                  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.background_kind = 'upload' AND c.background_ref = i.id::text)
                  AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.profile_image_kind = 'upload' AND a.profile_image_ref = i.id::text)
                ORDER BY i.created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED),
            deleted AS (DELETE FROM images WHERE id IN (SELECT id FROM unused) RETURNING 1)
            SELECT count(*)::int FROM deleted
            """)
        return try RowCells.decode(rows[0], Int.self)
    }

    public func unscrubbed(limit: Int) async throws -> [(image: StoredImage, bytes: [UInt8])] {
        let rows = try await self.database.rows(
            """
            SELECT id, owner_id, content_type, byte_count, encode(sha256, 'hex'), created_at, bytes FROM images
            WHERE width IS NULL AND bytes IS NOT NULL ORDER BY created_at LIMIT \(limit)
            """)
        return try rows.compactMap { row in
            let (id, owner, contentType, byteCount, sha256, createdAt, bytes) = try RowCells.decode(
                row, UUID.self, UUID.self, String.self, Int.self, String.self, Date.self, ByteBuffer.self)
            guard let format = ImageFormat(contentType: contentType) else { return nil }
            let image = StoredImage(
                id: id, ownerID: owner, format: format, byteCount: byteCount, sha256: sha256, width: nil, height: nil, createdAt: createdAt)
            return (image, Array(bytes.readableBytesView))
        }
    }

    public func replaceLegacy(id: UUID, with scrubbed: (bytes: [UInt8], sha256: String, width: Int, height: Int)?) async throws {
        if let scrubbed {
            try await self.database.execute(
                """
                UPDATE images SET bytes = \(Bytea(bytes: scrubbed.bytes)), byte_count = \(scrubbed.bytes.count),
                    sha256 = decode(\(scrubbed.sha256), 'hex'), width = \(scrubbed.width), height = \(scrubbed.height)
                WHERE id = \(id) AND width IS NULL
                """)
        } else {
            try await self.database.execute("UPDATE images SET bytes = NULL WHERE id = \(id) AND width IS NULL")
        }
    }
}

/// Bytes bound as `bytea`, written straight into the statement's bindings (no intermediate
/// `Data` or `ByteBuffer` copy).
struct Bytea: PostgresNonThrowingEncodable {
    let bytes: [UInt8]

    static var psqlType: PostgresDataType { .bytea }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeBytes(self.bytes)
    }
}
