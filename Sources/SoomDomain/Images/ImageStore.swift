import Foundation

/// Where uploaded pictures live. PostgreSQL by default; an object store can take its place.
public protocol ImageStore: Sendable {
    /// Stores an upload whose metadata has already been removed (`PhotoScrubber`), unless its owner's
    /// uploads within the quota's window would then hold more than the quota's bytes: then nothing is
    /// stored and the answer says when the upload would fit. Exact under concurrent uploads of one
    /// account. Takes the bytes over (`consuming`), so that a store may let them go as soon as it has
    /// copied them.
    func save(_ image: StoredImage, bytes: consuming [UInt8], within quota: UploadQuota) async throws -> ImageSaving

    /// The picture, or only its description when the client already holds it: when `knownDigests`
    /// (the SHA-256 values of the `If-None-Match` tags) contains the image's digest, or holds `"*"`,
    /// the bytes are not read at all. Nil when there is no such image (or its bytes were dropped).
    func load(id: UUID, unlessDigestIn knownDigests: [String]) async throws -> ImageLoad?

    /// Deletes up to `limit` uploads created before `cutoff` that no card and no profile uses;
    /// returns how many. Safe to run on several instances at once.
    func purgeUnused(createdBefore cutoff: Date, limit: Int) async throws -> Int

    /// Uploads stored before metadata was removed on upload (they have no dimensions yet), at most `limit`.
    func unscrubbed(limit: Int) async throws -> [(image: StoredImage, bytes: [UInt8])]

    /// Replaces a legacy upload's bytes with its scrubbed ones (`bytes` nil: it could not be read,
    /// and its bytes are dropped rather than kept).
    func replaceLegacy(id: UUID, with scrubbed: (bytes: [UInt8], sha256: String, width: Int, height: Int)?) async throws
}

/// What `ImageStore.save` did.
public enum ImageSaving: Sendable, Equatable {
    case stored
    /// Over the owner's quota: nothing stored; the upload fits from `retryAt` on.
    case overQuota(retryAt: Date)
}

/// What `ImageStore.load` found.
public enum ImageLoad: Sendable, Equatable {
    /// The client's copy is current: answer `304` with this description.
    case notModified(StoredImage)
    case found(StoredImage, bytes: [UInt8])
}

/// An uploaded picture's description.
public struct StoredImage: Sendable, Equatable {
    public let id: UUID
    public let ownerID: UUID
    public let format: ImageFormat
    public let byteCount: Int
    /// SHA-256 of the stored bytes, hex: the `ETag`.
    public let sha256: String
    /// From the picture's header; nil only for an upload stored before uploads were scrubbed.
    public let width: Int?
    public let height: Int?
    public let createdAt: Date

    public init(id: UUID, ownerID: UUID, format: ImageFormat, byteCount: Int, sha256: String, width: Int?, height: Int?, createdAt: Date) {
        self.id = id
        self.ownerID = ownerID
        self.format = format
        self.byteCount = byteCount
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.createdAt = createdAt
    }

    /// The `ETag` of the stored bytes.
    public var entityTag: String { "\"\(self.sha256)\"" }
}
