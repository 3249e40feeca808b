import Foundation

/// Where uploaded pictures live. PostgreSQL by default; an object store can take its place.
public protocol ImageStore: Sendable {
    func save(_ image: StoredImage, bytes: [UInt8]) async throws
    /// The image's description and bytes, if it exists.
    func load(id: UUID) async throws -> (image: StoredImage, bytes: [UInt8])?
}

/// An uploaded picture's description.
public struct StoredImage: Sendable, Equatable {
    public let id: UUID
    public let ownerID: UUID
    public let format: ImageFormat
    public let byteCount: Int
    /// SHA-256 of the bytes, hex: the `ETag`.
    public let sha256: String
    public let createdAt: Date

    public init(id: UUID, ownerID: UUID, format: ImageFormat, byteCount: Int, sha256: String, createdAt: Date) {
        self.id = id
        self.ownerID = ownerID
        self.format = format
        self.byteCount = byteCount
        self.sha256 = sha256
        self.createdAt = createdAt
    }
}

/// Upload rules: at most 5 MiB, JPEG, PNG or WebP, and the bytes must be what the header says.
public enum ImageUploadRules {
    public static let maximumBytes = 5 * 1024 * 1024

    public static let tooLarge = SoomError(
        .payloadTooLarge, code: "payload_too_large", message: "An image is at most 5 MiB.")

    public static func unsupported(_ detail: String) -> SoomError {
        SoomError(.unsupportedMediaType, code: "unsupported_media_type", message: detail)
    }
}
