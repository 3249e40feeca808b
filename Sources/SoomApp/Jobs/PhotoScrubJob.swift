import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `photo-scrub`, every minute: uploads stored before photos were scrubbed on arrival lose their
/// metadata, 20 at a time until none is left, or lose their bytes if they cannot be read
/// (`ScrubLegacyPhotos`).
///
/// Safe with several instances: an upload is replaced only while it is still unscrubbed
/// (`width IS NULL`), so two instances that pick the same one change it once.
struct PhotoScrubJob: Service {
    let images: any ImageStore
    let digest: ContentDigest
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "photo-scrub", every: .seconds(60), startAfter: self.startAfter, logger: self.logger) {
            let scrub = ScrubLegacyPhotos(store: self.images, digest: self.digest)
            while try await scrub(limit: 20) == 20 {}
        }.run()
    }
}
