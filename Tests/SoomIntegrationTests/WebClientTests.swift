import Foundation
import HummingbirdTesting
import SoomApp
import Testing

@testable import SoomHTTP

/// The web client as the server sends it: `/` and `/app/<version>/<file>` (contract: *Operations*).
@Suite("Web client files")
struct WebClientTests {
    /// The release's files as the server makes them (with the same SHA-256).
    static let assets = WebAssets(digest: OpenSSLContentDigest.sha256Hex)
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/SoomHTTP/Resources/web")
        .standardized

    @Test("/ is the page: HTML naming this release's files, a strict CSP, nosniff, revalidated by ETag (304)")
    func page() async throws {
        try await withTestApp { client, _ in
            let page = try await client.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains("src=\"/app/\(Self.assets.version)/app.js\""))
            #expect(!html.contains("{{BASE}}"))
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval") && !policy.contains("http"))
            #expect(page.headers[.init("X-Content-Type-Options")!] == "nosniff")
            #expect(page.headers[.cacheControl] == "no-cache")
            let etag = try #require(page.headers[.eTag])
            let again = try await client.send(.get, "/", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            #expect(again.headers[.contentSecurityPolicy] == policy)
        }
    }

    @Test("every file under this release's version is cached for a year; another version revalidates; unknown files are 404 JSON")
    func files() async throws {
        try await withTestApp { client, _ in
            let base = "/app/\(Self.assets.version)"
            for (name, type) in [
                ("app.js", "text/javascript; charset=utf-8"), ("styles.css", "text/css; charset=utf-8"), ("icon.svg", "image/svg+xml"),
            ] {
                let response = try await client.send(.get, "\(base)/\(name)")
                #expect(response.status == .ok, "\(name)")
                #expect(response.headers[.contentType] == type)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.contentSecurityPolicy] != nil)
                let notModified = try await client.send(.get, "\(base)/\(name)", headers: [.ifNoneMatch: try #require(response.headers[.eTag])])
                #expect(notModified.status == .notModified)
            }
            let older = try await client.send(.get, "/app/0123456789abcdef/app.js")
            #expect(older.status == .ok && older.headers[.cacheControl] == "no-cache")
            for path in [
                "\(base)/nope.js", "\(base)/index.html", "\(base)/", "/app/\(Self.assets.version)", "/app", "\(base)/..%2fPackage.swift",
                "\(base)/%2e%2e",
            ] {
                let response = try await client.send(.get, path)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.errorCode == "not_found", "\(path)")
            }
            #expect(try await client.send(.post, "/").status == .methodNotAllowed)
        }
    }

    @Test("every file of Resources/web is served, and every module a script imports is one of them")
    func completeness() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(WebAssets.sources.map(\.name)))
        let importPattern = try Regex(#"(?:from|import)\s*\(?\s*'\./([^']+)'"#)
        for name in names where name.hasSuffix(".js") {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            for match in text.matches(of: importPattern) {
                let imported = String(match.output[1].substring ?? "")
                #expect(Self.assets.files[imported] != nil, "\(name) imports ./\(imported), which is not served")
            }
        }
        let html = String(decoding: WebAssets.sources.first { $0.name == "index.html" }!.bytes, as: UTF8.self)
        for link in html.matches(of: try Regex(#"\{\{BASE\}\}/([^"]+)""#)) {
            #expect(Self.assets.files[String(link.output[1].substring ?? "")] != nil)
        }
    }

    @Test("no inline script, style attribute or other origin anywhere in the client: the CSP would block it")
    func nothingInline() throws {
        for (name, bytes) in WebAssets.sources {
            // (The SVG namespace is a name, not something loaded.)
            let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
            #expect(!text.contains("style=\""), "\(name)")
            #expect(!text.contains("http://") && !text.contains("https://"), "\(name) names another origin")
            #expect(!text.contains("innerHTML") && !text.contains("eval("), "\(name)")
            if name == "index.html" {
                #expect(text.matches(of: try Regex("<script")).count == text.matches(of: try Regex("<script type=\"module\" src=")).count)
            }
        }
    }
}
