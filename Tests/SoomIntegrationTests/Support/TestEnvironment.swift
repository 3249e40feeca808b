import Logging
import PostgresNIO
import SoomApp
import SoomData
import SoomDomain
import SoomPush

@testable import SoomHTTP

/// Dependencies for building the router without a database behind it (route-list checks).
enum TestEnvironment {
    static let database = Database(
        client: PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable)),
        logger: Logger(label: "soom-test"))
    static let identity = IdentityEnvironment(repository: PostgresIdentityRepository(database: database), crypto: OpenSSLIdentityCrypto())
    static let cards = CardEnvironment(cards: PostgresCardRepository(database: database))
    static let images = PostgresImageStore(database: database)
    static let tags = TagEnvironment(tags: PostgresTagRepository(database: database))
    static let people = PeopleEnvironment(people: PostgresPeopleRepository(database: database))
    static let notifications = PostgresNotificationRepository(database: database)
    static let operators = PostgresOperators(database: database)
    static let switches = OperatorSwitches()
    static let push = PushEnvironment(
        subscriptions: ManagePushSubscriptions(
            repository: PostgresPushRepository(database: database), policy: PushEndpointPolicy(offered: [.webPush])),
        vapidPublicKey: { "" })
}

extension TestDatabase {
    /// A card repository on this test's database, for calling maintenance work directly.
    func withCardRepository<T: Sendable>(_ body: (PostgresCardRepository) async throws -> T) async throws -> T {
        try await self.withDatabase { try await body(PostgresCardRepository(database: $0)) }
    }

    /// A notification repository on this test's database, for running the favourite-tag delivery directly.
    func withNotificationRepository<T: Sendable>(_ body: (PostgresNotificationRepository) async throws -> T) async throws -> T {
        try await self.withDatabase { try await body(PostgresNotificationRepository(database: $0)) }
    }

    /// Operator moderation (`soom admin`) on this test's database.
    func withModeration<T: Sendable>(_ body: (PostgresModeration) async throws -> T) async throws -> T {
        try await self.withDatabase { try await body(PostgresModeration(database: $0)) }
    }

    /// An identity repository on this test's database, for calling maintenance work directly.
    func withIdentityRepository<T: Sendable>(_ body: (PostgresIdentityRepository) async throws -> T) async throws -> T {
        try await self.withDatabase { try await body(PostgresIdentityRepository(database: $0)) }
    }

    /// A pool on this test's database for setting up and checking. Its deadline and its patience for
    /// a connection are a minute: a loaded machine (many suites starting at once) must not fail a
    /// test's setup; the tests of deadlines build their own.
    func withDatabase<T: Sendable>(_ body: (Database) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: self.configuration.clientConfiguration)
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await body(
            Database(client: client, logger: Logger(label: "soom-test"), deadline: .seconds(60), connectionPatience: .seconds(60)))
    }
}

extension TestDatabase {
    /// The operators' tables (`soom admin notice|client-version|maintenance|words`) on this test's database.
    func withOperators<T: Sendable>(_ body: (PostgresOperators) async throws -> T) async throws -> T {
        try await self.withDatabase { try await body(PostgresOperators(database: $0)) }
    }
}
