import Foundation
import HTTPTypes
import NIOCore
import SoomDomain

/// The web client's files (`Resources/web`), compiled into the binary, as the server sends them.
///
/// Every file is served under `/app/<version>/<name>`, where `<version>` is a digest of all the
/// files together: a release that changes any file changes every URL, so browsers may cache each
/// one for a year (`immutable`) and never mix modules of two releases. `index.html`, served at
/// `/`, names that version; it is the one document revalidated on every load (by its `ETag`).
/// Made once per router, with the SHA-256 the composition root passes in.
struct WebAssets: Sendable {
    /// The files by name. A file added to `Resources/web` must be listed here too (a test checks).
    static let sources: [(name: String, bytes: [UInt8])] = [
        ("index.html", PackageResources.index_html), ("styles.css", PackageResources.styles_css), ("views.css", PackageResources.views_css),
        ("icon.svg", PackageResources.icon_svg), ("app.js", PackageResources.app_js), ("api.js", PackageResources.api_js),
        ("device.js", PackageResources.device_js), ("session.js", PackageResources.session_js), ("dom.js", PackageResources.dom_js),
        ("i18n.js", PackageResources.i18n_js), ("errors.js", PackageResources.errors_js), ("router.js", PackageResources.router_js),
        ("unread.js", PackageResources.unread_js), ("card.js", PackageResources.card_js), ("feed.js", PackageResources.feed_js),
        ("compose.js", PackageResources.compose_js), ("backgrounds.js", PackageResources.backgrounds_js), ("detail.js", PackageResources.detail_js),
        ("start.js", PackageResources.start_js), ("tags.js", PackageResources.tags_js), ("profile.js", PackageResources.profile_js),
        ("me.js", PackageResources.me_js), ("notifications.js", PackageResources.notifications_js), ("account.js", PackageResources.account_js),
        ("status.js", PackageResources.status_js), ("poll.js", PackageResources.poll_js), ("live.js", PackageResources.live_js),
        ("settings.js", PackageResources.settings_js), ("push.js", PackageResources.push_js), ("sw.js", PackageResources.sw_js),
    ]

    /// The release's version: 16 hex digits of the SHA-256 over every file's name and bytes.
    let version: String
    /// `/app/<version>/<name>`'s files (index.html included, as it is in the folder).
    let files: [String: StaticFile]
    /// The document at `/`: index.html with this release's base path filled in.
    let index: StaticFile

    /// - Parameter digest: SHA-256 in lower-case hex (`ContentDigest`).
    init(digest: ContentDigest) {
        var all: [UInt8] = []
        for (name, bytes) in Self.sources.sorted(by: { $0.name < $1.name }) {
            all += Array(name.utf8) + [0] + Array(String(bytes.count).utf8) + [0] + bytes
        }
        let version = String(digest(all).prefix(16))
        self.version = version
        self.files = Dictionary(
            uniqueKeysWithValues: Self.sources.map { name, bytes in (name, Self.asset(bytes, contentType: Self.contentType(of: name), digest: digest))
            })
        let template = String(decoding: PackageResources.index_html, as: UTF8.self)
        self.index = Self.asset(
            Array(template.replacingOccurrences(of: "{{BASE}}", with: "/app/\(version)").utf8), contentType: "text/html; charset=utf-8",
            digest: digest)
    }

    /// The path prefix of this release's files.
    var base: String { "/app/\(self.version)" }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }

    /// The entity tag is the first 128 bits of the SHA-256: its first 32 hex digits.
    private static func asset(_ bytes: [UInt8], contentType: String, digest: ContentDigest) -> StaticFile {
        StaticFile(buffer: ByteBuffer(bytes: bytes), contentType: contentType, etag: "\"\(digest(bytes).prefix(32))\"")
    }

    /// The headers every web client response carries: nothing from another origin may load
    /// (no inline script either), the page may not be framed, no referrer leaves it, and only
    /// this origin may ask for the position (the nearby feed, when the person asks).
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("Permissions-Policy")!: "geolocation=(self), camera=(), microphone=()",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
        HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
    ]
}
