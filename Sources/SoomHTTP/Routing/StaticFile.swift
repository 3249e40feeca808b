import Foundation
import Hummingbird
import NIOCore

/// Bytes the server holds and sends as they are (a web client file, a background, an upload),
/// with their type and strong entity tag: `304` with no body when the client has them already,
/// else `200`.
struct StaticFile: Sendable, Equatable {
    let buffer: ByteBuffer
    let contentType: String
    /// A strong entity tag, quoted.
    let etag: String

    /// The file as a response, after `headers`, with its `ETag` and `cacheControl`; without its
    /// bytes (and type) when `notModified`.
    func response(notModified: Bool, cacheControl: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.eTag] = self.etag
        headers[.cacheControl] = cacheControl
        if notModified { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = self.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: self.buffer))
    }

    /// The file as a response to a request with this `If-None-Match`.
    func response(ifNoneMatch: String?, cacheControl: String, headers: HTTPFields = [:]) -> Response {
        self.response(notModified: Self.matches(ifNoneMatch, self.etag), cacheControl: cacheControl, headers: headers)
    }

    /// `If-None-Match` with this entity tag (or `*`).
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// Sent for a year unchanged: the URL names the version (an upload's id, a release).
    static let immutable = "public, max-age=31536000, immutable"
}
