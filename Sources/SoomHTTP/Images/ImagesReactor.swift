import Foundation
import Hummingbird
import NIOCore
import SoomDomain

/// The contract's *Images* section: the built-in backgrounds, uploads, and serving picture bytes.
struct ImagesReactor: Reactor {
    enum Action: Sendable {
        case listDefaults
        case showDefault(name: String, ifNoneMatch: String?)
        case upload(owner: UUID, declared: ImageFormat, bytes: PendingUpload)
        case show(UUID, ifNoneMatch: String?)
    }

    enum Mutation: Sendable, Equatable {
        case defaultsListed
        case pictureFound(buffer: ByteBuffer, contentType: String, etag: String, immutable: Bool, notModified: Bool)
        case uploaded(StoredImage)
    }

    enum State: Sendable, Equatable {
        case defaults
        case picture(buffer: ByteBuffer, contentType: String, etag: String, immutable: Bool, notModified: Bool)
        /// `201` with `Location`.
        case uploaded(StoredImage)
        /// `404` for a picture not found; `500` for an upload that stored nothing (`UploadPhoto`
        /// returns the stored image or throws, so only a fault leaves it).
        case error(APIError)
    }

    let store: any ImageStore
    let upload: UploadPhoto
    let defaults: DefaultImages

    /// Nothing read: the built-in list (it is built in), no picture found.
    func initialState(for action: Action) -> State {
        switch action {
        case .listDefaults: .defaults
        case .showDefault, .show: .error(.notFound)
        case .upload: .error(.internalError)
        }
    }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .listDefaults:
            return [.defaultsListed]
        case .showDefault(let name, let ifNoneMatch):
            guard let picture = self.defaults.picture(named: name) else { throw APIError.notFound }
            return [
                .pictureFound(
                    buffer: picture.buffer, contentType: "image/png", etag: picture.etag, immutable: false,
                    notModified: Self.matches(ifNoneMatch, picture.etag))
            ]
        case .upload(let owner, let declared, let bytes):
            do {
                return [.uploaded(try await self.upload(owner: owner, declared: declared, upload: bytes))]
            } catch let exceeded as UploadQuotaExceeded {
                throw Self.overQuota(exceeded, now: Date())
            }
        case .show(let id, let ifNoneMatch):
            switch try await self.store.load(id: id, unlessDigestIn: Self.digests(in: ifNoneMatch)) {
            case nil:
                throw APIError.notFound
            case .notModified(let image):
                return [
                    .pictureFound(
                        buffer: ByteBuffer(), contentType: image.format.contentType, etag: image.entityTag, immutable: true, notModified: true)
                ]
            case .found(let image, let bytes):
                return [
                    .pictureFound(
                        buffer: ByteBuffer(bytes: bytes), contentType: image.format.contentType, etag: image.entityTag, immutable: true,
                        notModified: false)
                ]
            }
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .defaultsListed:
            .defaults
        case .pictureFound(let buffer, let contentType, let etag, let immutable, let notModified):
            .picture(buffer: buffer, contentType: contentType, etag: etag, immutable: immutable, notModified: notModified)
        case .uploaded(let image):
            .uploaded(image)
        }
    }

    /// `429 rate_limited` with `Retry-After` for an upload over its account's daily bytes: the same answer
    /// as the upload count's limit, so a client waits the same way.
    static func overQuota(_ exceeded: UploadQuotaExceeded, now: Date) -> APIError {
        let seconds = max(1, Int(exceeded.retryAt.timeIntervalSince(now).rounded(.up)))
        let mebibytes = exceeded.quota.bytes / (1024 * 1024)
        let hours = Int(exceeded.quota.window / 3600)
        return APIError(
            .tooManyRequests, code: "rate_limited",
            message: "This account has uploaded its \(mebibytes) MiB of pictures for \(hours) hours; try again in \(seconds) seconds.",
            headers: [.retryAfter: "\(seconds)"])
    }

    /// The digests an `If-None-Match` names (weak or strong, quoted), and `*` as itself: the
    /// uploads' entity tags are their SHA-256 in hex.
    static func digests(in header: String?) -> [String] {
        guard let header else { return [] }
        return header.split(separator: ",").compactMap { tag in
            var tag = tag.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return tag }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            guard tag.count == 66, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
            let digest = tag.dropFirst().dropLast()
            return digest.allSatisfy(\.isHexDigit) ? String(digest) : nil
        }
    }

    /// `If-None-Match` with this entity tag (or `*`).
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

extension ImagesReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .defaults:
            let items = DefaultBackground.all.map { DefaultImageBody(name: $0.name, category: $0.category, url: "/v1/images/defaults/\($0.name)") }
            return try JSON.response(.ok, ["items": items])
        case .picture(let buffer, let contentType, let etag, let immutable, let notModified):
            // Uploads never change (a new upload gets a new id); built-ins may change with a release.
            let caching = immutable ? "public, max-age=31536000, immutable" : "public, max-age=86400"
            let headers: HTTPFields = [.eTag: etag, .cacheControl: caching]
            if notModified { return Response(status: .notModified, headers: headers) }
            var withType = headers
            withType[.contentType] = contentType
            return Response(status: .ok, headers: withType, body: .init(byteBuffer: buffer))
        case .uploaded(let image):
            let url = "/v1/images/\(image.id.uuidString.lowercased())"
            return try JSON.response(
                .created,
                UploadedImageBody(
                    id: image.id.uuidString.lowercased(), url: url, contentType: image.format.contentType, byteCount: image.byteCount,
                    width: image.width ?? 0, height: image.height ?? 0),
                headers: [.location: url])
        case .error(let error):
            return try error.response()
        }
    }
}

/// `{"name","category","url"}`.
struct DefaultImageBody: Encodable, Equatable {
    let name: String
    let category: String
    let url: String
}

/// `{"id","url","contentType","byteCount","width","height"}`: `byteCount` is the stored size,
/// after the metadata was removed.
struct UploadedImageBody: Encodable, Equatable {
    let id: String
    let url: String
    let contentType: String
    let byteCount: Int
    let width: Int
    let height: Int
}
