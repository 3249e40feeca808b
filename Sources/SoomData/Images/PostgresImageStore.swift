import Foundation
import PostgresNIO
import SoomDomain

/// `ImageStore` in the `images` table: simple to run, transactional with everything else, and
/// fine for pictures of at most 5 MiB. An object store can replace it behind the same protocol.
public struct PostgresImageStore: ImageStore {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func save(_ image: StoredImage, bytes: [UInt8]) async throws {
        try await self.database.execute(
            """
            INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, created_at)
            VALUES (\(image.id), \(image.ownerID), \(image.format.contentType), \(image.byteCount), \(Self.hexDecode(image.sha256)),
                    \(Data(bytes)), \(image.createdAt))
            """)
    }

    public func load(id: UUID) async throws -> (image: StoredImage, bytes: [UInt8])? {
        let rows = try await self.database.rows(
            "SELECT owner_id, content_type, byte_count, sha256, bytes, created_at FROM images WHERE id = \(id)")
        guard let row = rows.first else { return nil }
        let (owner, contentType, byteCount, sha256, bytes, createdAt) = try row.decode((UUID, String, Int, Data, Data?, Date).self)
        guard let format = ImageFormat(contentType: contentType), let bytes else { return nil }
        let image = StoredImage(
            id: id, ownerID: owner, format: format, byteCount: byteCount, sha256: sha256.map { String(format: "%02x", $0) }.joined(),
            createdAt: createdAt)
        return (image, [UInt8](bytes))
    }

    static func hexDecode(_ hex: String) -> Data {
        var data = Data(capacity: hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }
}
