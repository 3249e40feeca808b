import Foundation
import Hummingbird
import SoomDomain

/// The routes of the contract's *Images* section. Reading is public (so `<img src>` works);
/// uploading needs a session.
struct ImagesController {
    let store: any ImageStore
    let upload: UploadPhoto
    let defaults: DefaultImages

    func addRoutes(public routes: APIRoutes<AppRequestContext>, authenticated: APIRoutes<AuthenticatedContext>) {
        routes.on("/images/defaults", method: .get) { _, _ in
            JSON.response(.ok, writing: DefaultImagesBody(), capacity: 2048)
        }
        routes.on("/images/defaults/{name}", method: .get) { request, context in
            guard let picture = self.defaults.picture(named: context.parameters.get("name") ?? "") else { throw APIError.notFound }
            // Built-ins may change with a release: kept a day.
            return picture.response(ifNoneMatch: request.headers[.ifNoneMatch], cacheControl: "public, max-age=86400")
        }
        routes.on("/images/{id}", method: .get) { request, context in
            try await self.reactor.respond(to: .show(try context.pathID(), ifNoneMatch: request.headers[.ifNoneMatch]), context: context)
        }
        authenticated.on("/images", method: .post, limit: .uploads) { request, context in
            let (format, bytes) = try await Self.readUpload(request)
            return try await self.reactor.respond(
                to: .upload(owner: context.caller.account.id, declared: format, bytes: PendingUpload(consume bytes)), context: context)
        }
    }

    private var reactor: ImagesReactor { ImagesReactor(store: self.store, upload: self.upload) }

    /// The declared type and the body, refused as soon as it passes 5 MiB (by `Content-Length`
    /// before reading, or while streaming when the length is not declared).
    static func readUpload(_ request: Request) async throws -> (ImageFormat, [UInt8]) {
        guard let declared = request.headers[.contentType].flatMap(ImageFormat.init(contentType:)) else {
            throw ImageUploadRules.unsupported("Content-Type must be image/jpeg, image/png or image/webp.")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > ImageUploadRules.maximumBytes {
            throw ImageUploadRules.tooLarge
        }
        var bytes: [UInt8] = []
        // Sized once when the length is declared: growing by doubling would briefly hold more.
        if let length = request.headers[.contentLength].flatMap(Int.init), length > 0 { bytes.reserveCapacity(length) }
        for try await buffer in request.body {
            guard bytes.count + buffer.readableBytes <= ImageUploadRules.maximumBytes else { throw ImageUploadRules.tooLarge }
            bytes.append(contentsOf: buffer.readableBytesView)
        }
        guard !bytes.isEmpty else { throw ImageUploadRules.unsupported("The body is empty; send the image's bytes.") }
        return (declared, bytes)
    }
}
