import Foundation

/// Removes the metadata of uploads stored before uploads were scrubbed on arrival, a few at a
/// time (the periodic `photo-scrub` job). An upload that cannot be read, or is larger than
/// uploads may be now, loses its bytes instead (it is then `404`): better no picture than one
/// that tells where it was taken.
public struct ScrubLegacyPhotos: Sendable {
    let store: any ImageStore
    let digest: @Sendable ([UInt8]) -> String

    public init(store: any ImageStore, digest: @escaping @Sendable ([UInt8]) -> String) {
        self.store = store
        self.digest = digest
    }

    /// Scrubs up to `limit` legacy uploads; returns how many it handled (fewer than `limit`: done).
    public func callAsFunction(limit: Int) async throws -> Int {
        let legacy = try await self.store.unscrubbed(limit: limit)
        for (image, bytes) in legacy {
            if ImageFormat.detect(bytes) == image.format, let scrubbed = try? PhotoScrubber.scrub(bytes, format: image.format) {
                try await self.store.replaceLegacy(
                    id: image.id, with: (scrubbed.bytes, self.digest(scrubbed.bytes), scrubbed.width, scrubbed.height))
            } else {
                try await self.store.replaceLegacy(id: image.id, with: nil)
            }
        }
        return legacy.count
    }
}
