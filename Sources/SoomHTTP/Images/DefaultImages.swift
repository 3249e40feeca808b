import NIOCore
import SoomCrypto
import SoomDomain

/// The built-in backgrounds' bytes, compiled into the binary, with their `ETag`s.
enum DefaultImages {
    struct Picture: Sendable {
        let buffer: ByteBuffer
        let etag: String
    }

    static let pictures: [String: Picture] = {
        let bytes: [String: [UInt8]] = [
            "sky-dawn": PackageResources.sky_dawn_png, "sky-noon": PackageResources.sky_noon_png,
            "sky-night": PackageResources.sky_night_png, "sea-calm": PackageResources.sea_calm_png,
            "sea-wave": PackageResources.sea_wave_png, "sea-deep": PackageResources.sea_deep_png,
            "forest-moss": PackageResources.forest_moss_png, "forest-pine": PackageResources.forest_pine_png,
            "forest-mist": PackageResources.forest_mist_png, "paper-cream": PackageResources.paper_cream_png,
            "paper-grid": PackageResources.paper_grid_png, "paper-dots": PackageResources.paper_dots_png,
        ]
        return bytes.mapValues { bytes in
            let digest = SHA256Digest.hash(bytes).prefix(16).map { String(format: "%02x", $0) }.joined()
            return Picture(buffer: ByteBuffer(bytes: bytes), etag: "\"\(digest)\"")
        }
    }()

    static func picture(named name: String) -> Picture? {
        self.pictures[name]
    }
}
