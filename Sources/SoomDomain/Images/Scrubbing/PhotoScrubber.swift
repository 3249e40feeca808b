/// A photo made safe to store: every metadata block gone, the pixels' bytes untouched.
public struct ScrubbedPhoto: Sendable, Equatable {
    /// The file, in the format it came in, without metadata (see `PhotoScrubber`).
    public let bytes: [UInt8]
    /// The stored size from the headers, before any orientation is applied.
    public let width: Int
    public let height: Int
    /// The EXIF orientation the file still carries (2…8), or nil when it is stored upright.
    public let orientation: Int?
}

/// Why an uploaded photo was refused.
public enum PhotoProblem: Error, Equatable, Sendable {
    /// The bytes are not a well-formed file of the format (truncated, inconsistent sizes, missing parts).
    /// The detail says what is wrong, never where (no byte offsets: they would map the parser for an attacker).
    case malformed(String)
    /// The picture moves (an animated WebP or PNG): a background must be a still picture, and an
    /// animation of thousands of large frames costs every viewer's browser a core.
    case animated
    /// The headers claim more than `PhotoScrubber.maximumSide` a side or `PhotoScrubber.maximumPixels`.
    case tooLarge(width: Int, height: Int)
}

/// Lossless removal of photo metadata (EXIF, GPS, XMP, IPTC, comments, text chunks, thumbnails, trailers).
///
/// Contract:
/// - Pixels are never decoded: the compressed image data is copied byte for byte, and so are the blocks
///   that decoding needs (tables, frame headers, colour profiles, palettes, animation control).
/// - Every other block is dropped, except the EXIF orientation: when the original says 2…8, a minimal
///   EXIF holding only that tag takes the place of the original one, so the photo still shows upright.
/// - Anything after the format's end marker is dropped (phones append trailers and motion-photo videos).
/// - The structure is checked as far as it can be without decoding pixels: one still image (animation is
///   refused), header fields of allowed values, sizes that agree with each other (a WebP canvas and its
///   bitstream), and every kept block whole. Bytes a decoder would not read inside a kept block are dropped
///   or refused; PNG's zlib stream is followed to its end (`Inflate`). What cannot be checked without
///   decoding pixels: bytes hidden at the end of a JPEG scan or of a WebP bitstream.
/// - Colour profiles (ICC) are kept, as they say how to show the colours, but made anonymous
///   (`ICCProfile`): their descriptions, copyright, device maker and model, dates and private tags can
///   name the camera, phone or calibrated screen that made the picture.
/// - Dimensions come from the headers and are checked before anything else is done; oversized photos
///   throw `.tooLarge`, anything structurally wrong throws `.malformed`. No input traps.
/// - Scrubbing a scrubbed photo returns the same bytes.
/// - Memory: one output array reserved at the input's size.
public enum PhotoScrubber {
    /// The longest side accepted, in pixels.
    public static let maximumSide = 8192
    /// The most pixels accepted (width × height).
    public static let maximumPixels = 40_000_000

    /// Reads the dimensions from the headers only, and refuses oversized photos.
    ///
    /// Cheap: reads a few header bytes (for JPEG, the segments up to the first frame header), so a prefix
    /// of the file that holds them is enough.
    /// Throws `.tooLarge` over the limits, `.animated` when the header already says so, and `.malformed`
    /// when the headers cannot be read.
    public static func dimensions(of bytes: [UInt8], format: ImageFormat) throws(PhotoProblem) -> (width: Int, height: Int) {
        let size =
            switch format {
            case .jpeg: try JPEGScrubber.dimensions(of: bytes)
            case .png: try PNGScrubber.dimensions(of: bytes)
            case .webp: try WebPScrubber.dimensions(of: bytes)
            }
        try Self.checkLimits(width: size.width, height: size.height)
        return size
    }

    /// Checks the dimensions first (`dimensions(of:format:)`), then returns the bytes with every metadata
    /// block removed and the orientation, if any, kept as a minimal EXIF.
    public static func scrub(_ bytes: [UInt8], format: ImageFormat) throws(PhotoProblem) -> ScrubbedPhoto {
        let size = try Self.dimensions(of: bytes, format: format)
        let scrubbed =
            switch format {
            case .jpeg: try JPEGScrubber.scrub(bytes)
            case .png: try PNGScrubber.scrub(bytes)
            case .webp: try WebPScrubber.scrub(bytes)
            }
        return ScrubbedPhoto(bytes: scrubbed.bytes, width: size.width, height: size.height, orientation: scrubbed.orientation)
    }

    /// Throws `.tooLarge` unless both sides and the pixel count are within the limits.
    static func checkLimits(width: Int, height: Int) throws(PhotoProblem) {
        guard width <= Self.maximumSide, height <= Self.maximumSide, width * height <= Self.maximumPixels else {
            throw .tooLarge(width: width, height: height)
        }
    }
}
