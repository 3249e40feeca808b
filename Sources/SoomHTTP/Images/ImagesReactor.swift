import Foundation
import Hummingbird
import NIOCore
import SoomDomain

/// The contract's *Images* section that touches storage: uploads, and serving an upload's bytes.
/// (The built-in backgrounds are files: `ImagesController` serves them.)
struct ImagesReactor: Reactor {
    enum Action: Sendable {
        case upload(owner: UUID, declared: ImageFormat, bytes: PendingUpload)
        case show(UUID, ifNoneMatch: String?)
    }

    enum Mutation: Sendable, Equatable {
        /// The upload's bytes, or none when the client has them already (`notModified`).
        case pictureFound(StaticFile, notModified: Bool)
        case uploaded(StoredImage)
    }

    enum State: Sendable, Equatable {
        case picture(StaticFile, notModified: Bool)
        /// `201` with `Location`.
        case uploaded(StoredImage)
    }

    let store: any ImageStore
    let upload: UploadPhoto

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .upload(let owner, let declared, let bytes):
            return [.uploaded(try await self.upload(owner: owner, declared: declared, upload: bytes))]
        case .show(let id, let ifNoneMatch):
            switch try await self.store.load(id: id, unlessDigestIn: Self.digests(in: ifNoneMatch)) {
            case nil:
                throw APIError.notFound
            case .notModified(let image):
                return [
                    .pictureFound(StaticFile(buffer: ByteBuffer(), contentType: image.format.contentType, etag: image.entityTag), notModified: true)
                ]
            case .found(let image, let bytes):
                let file = StaticFile(buffer: ByteBuffer(bytes: bytes), contentType: image.format.contentType, etag: image.entityTag)
                return [.pictureFound(file, notModified: false)]
            }
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .pictureFound(let file, let notModified): .picture(file, notModified: notModified)
        case .uploaded(let image): .uploaded(image)
        }
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
}

extension ImagesReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .picture(let file, let notModified):
            // Uploads never change: a new upload gets a new id.
            return file.response(notModified: notModified, cacheControl: StaticFile.immutable)
        case .uploaded(let image):
            let url = "/v1/images/\(image.id.uuidString.lowercased())"
            return JSON.response(.created, writing: UploadedImageBody(image: image, url: url), capacity: 256, headers: [.location: url])
        }
    }
}

/// `{"id","url","contentType","byteCount","width","height"}`: `byteCount` is the stored size,
/// after the metadata was removed; an unknown size is 0.
struct UploadedImageBody: JSONWritable, Equatable {
    let image: StoredImage
    let url: String

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", self.image.id)
        writer.member("url", self.url)
        writer.member("contentType", self.image.format.contentType)
        writer.member("byteCount", self.image.byteCount)
        writer.member("width", self.image.width ?? 0)
        writer.member("height", self.image.height ?? 0)
        writer.endObject()
    }
}

/// `{"items": [{"name","category","url"}]}`: the built-in backgrounds.
struct DefaultImagesBody: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for background in DefaultBackground.all {
            writer.beginObject()
            writer.member("name", background.name)
            writer.member("category", background.category)
            writer.member("url", "/v1/images/defaults/\(background.name)")
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
