// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "soom",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "soom", targets: ["soom"]),
        .library(name: "SoomCrypto", targets: ["SoomCrypto"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"6.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // Tests only: the push stand-ins' certificates.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    ],
    targets: [
        // Domain: entities, self-validating values, repository protocols, use cases. No HTTP, no SQL.
        .target(
            name: "SoomDomain", dependencies: ["CUnicodeSecurity", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        // Unicode TR 39 (confusable skeletons, mixed scripts) from the system's ICU (libicu-dev), for
        // nicknames and tags that must not impersonate one another.
        .target(name: "CUnicodeSecurity", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),
        // libcrypto from the system's OpenSSL 3 (libssl-dev).
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // A small Swift API over OpenSSL: key parsing, signature verification, random bytes, SHA-256.
        .target(name: "SoomCrypto", dependencies: ["COpenSSL"], swiftSettings: strict),
        // Data: PostgreSQL repositories, migrations, the embedded database.
        .target(
            name: "SoomData",
            dependencies: [
                "SoomDomain", "SoomCrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The pool's own error (`ConnectionPoolError`), which `PostgresClient` passes on unwrapped.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Resources/sql")],
            swiftSettings: strict
        ),
        // The `soom seed` demo-data generator: a tool over SoomData, not part of the data layer.
        .target(
            name: "SoomSeed",
            dependencies: [
                "SoomData", "SoomDomain",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // HTTP: Hummingbird routes, request contexts, reactors, error mapping. Knows only the domain.
        .target(
            name: "SoomHTTP",
            dependencies: [
                "SoomDomain",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The HTTP/1 decoder's own error (`HTTPParserError`): a malformed body is the client's fault.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // A live stream ends as soon as the server begins to shut down.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Resources/backgrounds-src"],
            resources: [.embedInCode("Resources/openapi.yaml"), .embedInCode("Resources/backgrounds"), .embedInCode("Resources/web")],
            swiftSettings: strict
        ),
        // Push: Web Push (RFC 8030, 8291, 8292), FCM HTTP v1 and APNs senders over async-http-client,
        // and the checks that keep a subscriber's endpoint from pointing the server anywhere else.
        .target(
            name: "SoomPush",
            dependencies: [
                "SoomDomain",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The composition root: wires Data, Crypto and HTTP around the domain; the periodic jobs as services.
        .target(
            name: "SoomApp",
            dependencies: [
                "SoomDomain", "SoomData", "SoomCrypto", "SoomHTTP", "SoomPush",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "soom",
            dependencies: [
                "SoomApp", "SoomHTTP", "SoomData", "SoomSeed", "SoomDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "SoomDomainTests", dependencies: ["SoomDomain"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "SoomCryptoTests", dependencies: ["SoomCrypto"], exclude: ["Fixtures"], swiftSettings: strict),
        // SoomPush without a network: payload encryption against RFC 8291's example, VAPID, endpoint checks.
        .testTarget(
            name: "SoomPushTests",
            dependencies: [
                "SoomPush", "SoomDomain", .product(name: "Crypto", package: "swift-crypto"), .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        // SoomData without a database: statement names, the deadline wheel, secret files.
        .testTarget(
            name: "SoomDataTests",
            dependencies: [
                "SoomData", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // SoomHTTP without a database: request decoding, error mapping, JSON, reducers, routes and their limits.
        .testTarget(
            name: "SoomHTTPTests",
            dependencies: [
                "SoomHTTP", "SoomDomain",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SoomIntegrationTests",
            dependencies: [
                "SoomApp", "SoomHTTP", "SoomData", "SoomSeed", "SoomCrypto", "SoomDomain", "SoomPush",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
