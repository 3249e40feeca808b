/// The picture formats uploads may have, recognised by their first bytes (never by a header's word).
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg = "image/jpeg"
    case png = "image/png"
    case webp = "image/webp"

    public var contentType: String { self.rawValue }

    /// Bytes needed to recognise every format.
    public static let signatureLength = 12

    /// The format the bytes really are, if any.
    public static func detect(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        let bytes = Array(prefix.prefix(Self.signatureLength))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }

    /// The format a `Content-Type` names (parameters ignored), if it is one we take.
    public init?(contentType: String) {
        let essence = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        self.init(rawValue: essence)
    }
}
