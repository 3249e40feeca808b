/// Upload rules: at most 5 MiB, JPEG, PNG or WebP, the bytes must be what the header says, at
/// most 8,192 pixels a side and 40 megapixels, a still picture, whole and readable to the end.
public enum ImageUploadRules {
    public static let maximumBytes = 5 * 1024 * 1024

    /// An upload no card or profile uses is deleted this long after it was made.
    public static let unusedLifetime: Double = 24 * 60 * 60

    public static let tooLarge = SoomError(
        .payloadTooLarge, code: "payload_too_large", message: "An image is at most 5 MiB.")

    public static func unsupported(_ detail: String) -> SoomError {
        SoomError(.unsupportedMediaType, code: "unsupported_media_type", message: detail)
    }

    /// `422 validation_failed` on `image` for a picture that is too large, animated, or damaged. The
    /// messages say what is wrong, never where in the file.
    public static func refusal(_ problem: PhotoProblem) -> SoomError {
        switch problem {
        case .tooLarge(let width, let height):
            .validationFailed(
                field: "image",
                "The image is \(width) × \(height) pixels; at most \(PhotoScrubber.maximumSide) a side and 40 megapixels are accepted.")
        case .animated:
            .validationFailed(field: "image", "The image is animated; only still pictures are accepted.")
        case .malformed(let detail):
            .validationFailed(field: "image", "The image is damaged or truncated: \(detail).")
        }
    }
}
