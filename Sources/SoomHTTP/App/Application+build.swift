import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import Metrics
import PostgresNIO
import SoomData
import ServiceLifecycle
import SoomDomain

/// The composition root: the whole application on one screen.
///
/// It makes the database pool, the repositories and use cases over it, the router with every
/// controller, and the `Application` that runs the pool as a service and migrates on start.
/// Production (`soom serve`) and the tests build the app through this same function.
public func buildApplication(_ configuration: AppConfiguration) throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "soom")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    SoomMetrics.bootstrap()
    Gauge(label: "soom_db_pool_size").record(configuration.database.maximumConnections)

    // Data. The driver never logs below debug: at trace PostgresNIO writes every message it
    // sends and receives, bound values (keys, fingerprints, coordinates) included.
    let databaseLogger = {
        var databaseLogger = logger
        databaseLogger.logLevel = max(logger.logLevel, .debug)
        return databaseLogger
    }()
    // PostgreSQL ends statements and lock waits before the request's deadline (see Database).
    var databaseConfiguration = configuration.database
    databaseConfiguration.statementTimeout = max(configuration.requestDeadline * 0.9, configuration.requestDeadline - .seconds(1))
    let client = PostgresClient(configuration: databaseConfiguration.clientConfiguration, backgroundLogger: databaseLogger)
    let database = Database(client: client, logger: databaseLogger, deadline: configuration.requestDeadline)
    let identityRepository = PostgresIdentityRepository(database: database)
    let sessions = SessionCache(lifetime: configuration.sessionCacheLifetime)
    let feedPages = FeedPageCache(lifetime: configuration.feedCacheLifetime)
    let identity = IdentityEnvironment(repository: identityRepository, crypto: OpenSSLIdentityCrypto(), sessions: sessions, feedPages: feedPages)
    let cardRepository = PostgresCardRepository(database: database)
    let cards = CardEnvironment(cards: cardRepository, moderation: configuration.moderation, feedPages: feedPages)
    let images = PostgresImageStore(database: database)
    let tags = TagEnvironment(tags: PostgresTagRepository(database: database), rankingCacheLifetime: configuration.tagRankingCacheLifetime)
    let people = PeopleEnvironment(people: PostgresPeopleRepository(database: database))
    let notifications = PostgresNotificationRepository(database: database)

    // Background jobs, once the schema is migrated
    let migrated = OneTimeSignal(signalled: !configuration.migrateOnStart)
    // The session cache is used only while this listener hears the database's account changes.
    let sessionListener: [any Service] =
        configuration.sessionCacheLifetime > 0
        ? [SessionInvalidationListener(database: configuration.database, cache: sessions, startAfter: migrated, logger: databaseLogger)] : []
    let jobs: [any Service] =
        configuration.backgroundJobs
        ? [
            PeriodicJob(name: "popular-ranking", every: .seconds(15), startAfter: migrated, logger: logger) {
                try await cardRepository.refreshPopularRanking(limit: Feed.popularSize)
            },
            PeriodicJob(name: "story-expiry", every: .seconds(30), startAfter: migrated, logger: logger) {
                while try await cardRepository.sweepExpiredStories(limit: 1000) == 1000 {}
            },
            PeriodicJob(name: "favorite-tag-notifications", every: .seconds(1), startAfter: migrated, logger: logger) {
                while try await notifications.deliverFavoriteTagNotifications(limit: 50) == 50 {}
            },
            PeriodicJob(name: "expired-records", every: .seconds(60), startAfter: migrated, logger: logger) {
                while try await identityRepository.purgeExpired(limit: 5000) > 0 {}
                while try await cardRepository.purgeIdempotencyKeys(limit: 5000) == 5000 {}
            },
            // What PRIVACY.md promises: notifications and withdrawal records for 30 days, unused uploads for 24 hours.
            PeriodicJob(name: "retention", every: .seconds(60), startAfter: migrated, logger: logger) {
                let now = Date()
                while try await notifications.purge(createdBefore: now - Retention.notifications, limit: 5000) == 5000 {}
                while try await identityRepository.purgeWithdrawals(before: now - Retention.withdrawals, limit: 5000) == 5000 {}
                while try await images.purgeUnused(createdBefore: now - ImageUploadRules.unusedLifetime, limit: 200) == 200 {}
            },
            PeriodicJob(name: "photo-scrub", every: .seconds(60), startAfter: migrated, logger: logger) {
                let scrub = ScrubLegacyPhotos(store: images, digest: ImagesController.digest)
                while try await scrub(limit: 20) == 20 {}
            },
        ] : []

    // HTTP
    let catalog = EndpointCatalog()
    let limiter = configuration.rateLimits.map { RateLimiter(limits: $0) }
    let router = buildRouter(
        identity: identity, cards: cards, tags: tags, people: people, notifications: notifications, images: images, database: database,
        catalog: catalog, rateLimiter: limiter, trustForwardedFor: configuration.trustForwardedFor, metricsToken: configuration.metricsToken)

    // Slow and idle clients: the first request head within requestHeadTimeout of connecting; after
    // that no more than idleTimeout without a whole request head or body part (see RequestHeadTimeoutHandler).
    let headTimeout = TimeAmount(configuration.requestHeadTimeout)
    let server = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [RequestHeadTimeoutHandler(timeout: headTimeout)], idleTimeout: TimeAmount(configuration.idleTimeout)))
    var app = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "soom"),
        services: [client] + sessionListener + jobs,
        onServerRunning: { channel in await configuration.onServerRunning?(channel.localAddress?.port ?? 0) },
        logger: logger
    )
    if configuration.migrateOnStart {
        app.beforeServerStarts {
            // While PostgreSQL is still unreachable at start-up, SIGTERM must stop the wait (a
            // container would otherwise be killed after its stop timeout).
            let applied = try await cancelWhenGracefulShutdown {
                try await DatabaseProbe.waitUntilReachable(configuration.database, logger: databaseLogger)
                return try await Migrator(client: client, migrations: try Migration.bundled(), logger: databaseLogger).migrate()
            }
            logger.info("database schema is up to date", metadata: ["applied": "\(applied.count)", "database": "\(configuration.database)"])
            migrated.signal()
        }
    }
    return app
}

/// All routes: operations outside `/v1`, the public and the authenticated parts of `/v1`, and
/// `405` for wrong methods on known paths. With a `rateLimiter`, every `/v1` route is limited
/// (per account once authenticated, else per client address). Exposed for tests that check the route list.
func buildRouter(
    identity: IdentityEnvironment, cards: CardEnvironment, tags: TagEnvironment, people: PeopleEnvironment,
    notifications: any NotificationRepository, images: any ImageStore, database: Database, catalog: EndpointCatalog,
    rateLimiter: RateLimiter? = nil, trustForwardedFor: Bool = false, metricsToken: String? = nil
) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    // Outermost first: the request line and ID see the final status; metrics count what
    // ErrorMiddleware answered, by route template.
    router.add(middleware: NoSniffMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: ExactPathMiddleware(catalog: catalog))

    // With a rate limiter, each /v1 group is limited per address before its session is looked
    // up, then per account once it is known (see RateLimitMiddleware).
    func limited(_ group: RouterGroup<AppRequestContext>, session: AuthenticationMiddleware? = nil) -> RouterGroup<AppRequestContext> {
        guard let rateLimiter else { return session.map { group.add(middleware: $0) } ?? group }
        let byAddress = group.add(
            middleware: RateLimitMiddleware<AppRequestContext>(
                limiter: rateLimiter, trustForwardedFor: trustForwardedFor, sessionFollows: session != nil, peerAddress: \.peerAddress))
        guard let session else { return byAddress }
        return byAddress.add(middleware: session).add(middleware: AccountRateLimitMiddleware<AppRequestContext>(limiter: rateLimiter) { $0.caller?.account.id })
    }
    let root = CatalogedRoutes(group: router.group(), prefix: "", catalog: catalog)
    let v1 = CatalogedRoutes(group: limited(router.group("/v1")), prefix: "/v1", catalog: catalog)
    let signedIn = CatalogedRoutes(
        group: limited(router.group("/v1"), session: AuthenticationMiddleware(authenticate: Authenticate(identity)))
            .group(context: AuthenticatedContext.self),
        prefix: "/v1", catalog: catalog)
    // Public routes that also accept a session (a token, when sent, must be valid).
    let maybeSignedIn = CatalogedRoutes(
        group: limited(router.group("/v1"), session: AuthenticationMiddleware(authenticate: Authenticate(identity), required: false)),
        prefix: "/v1", catalog: catalog)

    OperationsController(database: database, metricsToken: metricsToken).addRoutes(to: root)
    WebClientController().addRoutes(to: root)
    IdentityController(environment: identity).addRoutes(public: v1, authenticated: signedIn)
    CardsController(cards: cards).addRoutes(to: signedIn)
    FeedsController(cards: cards).addRoutes(to: signedIn)
    TagsController(tags: tags, cards: cards).addRoutes(optionalSession: maybeSignedIn, authenticated: signedIn)
    PeopleController(people: people).addRoutes(to: signedIn)
    NotificationsController(notifications: notifications).addRoutes(to: signedIn)
    ImagesController(store: images, upload: UploadPhoto(store: images, digest: ImagesController.digest)).addRoutes(public: v1, authenticated: signedIn)

    catalog.installMethodNotAllowed(on: router)
    return router
}
