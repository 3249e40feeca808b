import Hummingbird
import NIOCore

/// `GET /` and `GET /app/{version}/{file}`: the web client's page and files (see `WebAssets`).
struct WebClientReactor: Reactor {
    enum Action: Sendable {
        /// The page, naming this release's files.
        case showPage(ifNoneMatch: String?)
        /// One file of the release `version`. Another release's version still gets today's file
        /// (during a rolling update a page from one instance may ask another), but not cached for long.
        case showFile(version: String, name: String, ifNoneMatch: String?)
    }

    enum Mutation: Sendable, Equatable {
        case pageFound(notModified: Bool)
        case fileFound(name: String, caching: Caching, notModified: Bool)
    }

    enum State: Sendable, Equatable {
        case page(notModified: Bool)
        case file(name: String, caching: Caching, notModified: Bool)
        /// `404`: no such file.
        case notFound
    }

    /// How long a browser may keep a response without asking again.
    enum Caching: Sendable, Equatable {
        /// Revalidate on every use (the page; a file asked for under another release's version).
        case revalidate
        /// A year, unchanged: the URL names the release.
        case immutable
    }

    let assets: WebAssets

    /// Nothing compared or found: the whole page (it is built in), no file.
    func initialState(for action: Action) -> State {
        switch action {
        case .showPage: .page(notModified: false)
        case .showFile: .notFound
        }
    }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .showPage(let ifNoneMatch):
            return [.pageFound(notModified: ImagesReactor.matches(ifNoneMatch, self.assets.index.etag))]
        case .showFile(let version, let name, let ifNoneMatch):
            guard let file = self.assets.files[name], name != "index.html" else { throw APIError.notFound }
            let current = version == self.assets.version
            return [.fileFound(name: name, caching: current ? .immutable : .revalidate, notModified: ImagesReactor.matches(ifNoneMatch, file.etag))]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .pageFound(let notModified): .page(notModified: notModified)
        case .fileFound(let name, let caching, let notModified): .file(name: name, caching: caching, notModified: notModified)
        }
    }
}

/// The response needs the release's files, so the controller passes them in (the state holds only names).
extension WebClientReactor.State {
    func response(from assets: WebAssets) throws -> Response {
        switch self {
        case .page(let notModified):
            return Self.response(assets.index, caching: .revalidate, notModified: notModified)
        case .file(let name, let caching, let notModified):
            guard let asset = assets.files[name] else { throw APIError.notFound }
            return Self.response(asset, caching: caching, notModified: notModified)
        case .notFound:
            throw APIError.notFound
        }
    }

    private static func response(_ asset: WebAssets.Asset, caching: WebClientReactor.Caching, notModified: Bool) -> Response {
        var headers = WebAssets.securityHeaders
        headers[.eTag] = asset.etag
        headers[.cacheControl] = caching == .immutable ? "public, max-age=31536000, immutable" : "no-cache"
        if notModified { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.buffer))
    }
}
