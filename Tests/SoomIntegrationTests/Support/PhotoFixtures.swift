import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The real photos of `Tests/SoomDomainTests/Fixtures/Photos` (made by real encoders, loaded with
/// GPS, camera, serial, XMP, IPTC and comment metadata by exiftool; see its `generate.sh`).
enum PhotoFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SoomDomainTests/Fixtures/Photos")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    /// Text the fixtures' metadata carries; none of it may survive an upload, or reach a log.
    static let secrets = [
        "SoomSecretMake", "SoomSecretModel", "SOOMBODY0002", "SOOMSERIAL0001", "SoomSecretTool", "soom secret comment", "SoomIptcKeyword",
        "SoomIptcCity", "SOOMTRAILER", "2024:05:01 12:34:56",
    ]
}

extension TestClientProtocol {
    /// `POST /v1/images` with the given bytes and `Content-Type`.
    func upload(_ bytes: [UInt8], type: String?, token: String) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let type { headers[.contentType] = type }
        return try await self.execute(uri: "/v1/images", method: .post, headers: headers, body: ByteBuffer(bytes: bytes))
    }
}
