import Foundation

/// Stores an upload with every metadata block removed (`PhotoScrubber`): the bytes decide the
/// format, not the header (`415` when they are not the declared JPEG, PNG or WebP); a picture over
/// 8,192 pixels a side or 40 megapixels, an animated one, or one that is damaged or cannot be read to
/// its end, is `422` on `image` before anything is stored. An upload that would take its account past
/// its `UploadQuota` stores nothing and throws `UploadQuotaExceeded`.
public struct UploadPhoto: Sendable {
    let store: any ImageStore
    /// SHA-256 of the stored bytes, hex (the `ETag`); the crypto adapter provides it.
    let digest: @Sendable ([UInt8]) -> String
    let quota: UploadQuota
    let now: @Sendable () -> Date

    public init(
        store: any ImageStore, digest: @escaping @Sendable ([UInt8]) -> String, quota: UploadQuota = .default,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.digest = digest
        self.quota = quota
        self.now = now
    }

    public func callAsFunction(owner: UUID, declared: ImageFormat, upload: PendingUpload) async throws -> StoredImage {
        var bytes = upload.take()
        guard let actual = ImageFormat.detect(bytes) else {
            throw ImageUploadRules.unsupported("The body is not a JPEG, PNG or WebP image.")
        }
        guard actual == declared else {
            throw ImageUploadRules.unsupported(
                "The body is \(actual.contentType), not \(declared.contentType) as Content-Type says; send it as \(actual.contentType).")
        }
        let scrubbed: ScrubbedPhoto
        do {
            scrubbed = try PhotoScrubber.scrub(bytes, format: actual)
        } catch {
            throw ImageUploadRules.refusal(error)
        }
        // The upload's own bytes are no longer needed: only the scrubbed copy is held from here,
        // and the store takes that one over.
        bytes = []
        let output = scrubbed.bytes
        let image = StoredImage(
            id: UUID(), ownerID: owner, format: actual, byteCount: output.count, sha256: self.digest(output),
            width: scrubbed.width, height: scrubbed.height, createdAt: self.now())
        _ = consume scrubbed
        switch try await self.store.save(image, bytes: consume output, within: self.quota) {
        case .stored: return image
        case .overQuota(let retryAt): throw UploadQuotaExceeded(quota: self.quota, retryAt: retryAt)
        }
    }
}
