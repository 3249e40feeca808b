import NIOCore
import SoomDomain

/// The built-in backgrounds' bytes, compiled into the binary, with their `ETag`s (the first 128
/// bits of their SHA-256). Made once per router, with the SHA-256 the composition root passes in.
struct DefaultImages: Sendable {
    let pictures: [String: StaticFile]

    /// - Parameter digest: SHA-256 in lower-case hex (`ContentDigest`).
    init(digest: ContentDigest) {
        let bytes: [String: [UInt8]] = [
            "sky-dawn": PackageResources.sky_dawn_png, "sky-noon": PackageResources.sky_noon_png,
            "sky-night": PackageResources.sky_night_png, "sea-calm": PackageResources.sea_calm_png,
            "sea-wave": PackageResources.sea_wave_png, "sea-deep": PackageResources.sea_deep_png,
            "forest-moss": PackageResources.forest_moss_png, "forest-pine": PackageResources.forest_pine_png,
            "forest-mist": PackageResources.forest_mist_png, "paper-cream": PackageResources.paper_cream_png,
            "paper-grid": PackageResources.paper_grid_png, "paper-dots": PackageResources.paper_dots_png,
        ]
        self.pictures = bytes.mapValues { bytes in
            StaticFile(buffer: ByteBuffer(bytes: bytes), contentType: "image/png", etag: "\"\(digest(bytes).prefix(32))\"")
        }
    }

    func picture(named name: String) -> StaticFile? {
        self.pictures[name]
    }
}
