import Hummingbird
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SoomData
import SoomDomain
import SoomHTTP
import SoomPush

/// The composition root: the whole application on one screen, wiring only.
///
/// It makes the database pool, the repositories and use cases over it, the background jobs, the
/// router with every controller, and the `Application` that runs the pool and the jobs as services
/// and migrates on start. Production (`soom serve`) and the tests build the app through this function.
public func buildApplication(_ configuration: AppConfiguration) throws -> some ApplicationProtocol {
    let logger = Logger.soom(level: configuration.logLevel)
    try StartupError.requireUnicodeSecurity()
    SoomMetrics.bootstrap()
    Gauge(label: "soom_db_pool_size").record(configuration.database.maximumConnections)

    // Data. The driver never logs below debug: at trace PostgresNIO writes every message it
    // sends and receives, bound values (keys, fingerprints, coordinates) included.
    let databaseLogger = logger.notBelow(.debug)
    let client = PostgresClient(configuration: configuration.databaseForRequests.clientConfiguration, backgroundLogger: databaseLogger)
    let database = Database(client: client, logger: databaseLogger, deadline: configuration.requestDeadline)
    let operators = PostgresOperators(database: database)
    let switches = OperatorSwitches()
    let views = ViewLog()
    let identityRepository = PostgresIdentityRepository(database: database)
    let sessions = SessionCache(lifetime: configuration.sessionCacheLifetime)
    let feedPages = FeedPageCache(lifetime: configuration.feedCacheLifetime, memos: .encodedCards)
    let marks = ViewerMarkCache(lifetime: configuration.marksCacheLifetime)
    let identity = IdentityEnvironment(
        repository: identityRepository, crypto: OpenSSLIdentityCrypto(), sessions: sessions, feedPages: feedPages, switches: switches)
    let cardRepository = PostgresCardRepository(database: database)
    let cards = CardEnvironment(
        cards: cardRepository, moderation: configuration.moderation, feedPages: feedPages, viewerMarks: marks, switches: switches,
        views: views)
    let images = PostgresImageStore(database: database)
    let tags = TagEnvironment(
        tags: PostgresTagRepository(database: database), rankingCacheLifetime: configuration.tagRankingCacheLifetime, switches: switches)
    let people = PeopleEnvironment(people: PostgresPeopleRepository(database: database), viewerMarks: marks, feedPages: feedPages, views: views)
    let notifications = PostgresNotificationRepository(database: database)
    let live = LiveNotifications()

    // Push: the queue in PostgreSQL, the senders over one HTTP client, the VAPID key made once.
    let pushRepository = PostgresPushRepository(database: database)
    let pushPolicy = PushEndpointPolicy(offered: configuration.push.offered, allowedHosts: configuration.push.allowedHosts)
    let vapid = try VAPIDKeeper(subject: configuration.push.vapidSubject, pem: configuration.push.vapidPrivateKeyPEM, repository: pushRepository)
    // Made after everything that can fail: a client must be shut down, which only a running app does.
    let pushClient = PushHTTPClient.make(extraRoots: configuration.push.caFile)
    var senders: [PushKind: any PushSender] = [
        .webPush: WebPushSender(
            client: pushClient, vapid: vapid, policy: pushPolicy, logger: logger, timeout: configuration.push.sendTimeout,
            encode: NotificationJSON.bytes)
    ]
    if let fcm = configuration.push.fcm {
        senders[.fcm] = FCMSender(
            client: pushClient, tokens: FCMAccessToken(credentials: fcm, tokenURL: configuration.push.fcmTokenURL, client: pushClient),
            endpoint: configuration.push.fcmEndpoint, timeout: configuration.push.sendTimeout, logger: logger, encode: NotificationJSON.bytes)
    }
    if let apns = configuration.push.apns {
        senders[.apns] = APNsSender(
            client: pushClient, credentials: apns, timeout: configuration.push.sendTimeout, logger: logger, encode: NotificationJSON.bytes)
    }
    let push = PushEnvironment(
        subscriptions: ManagePushSubscriptions(repository: pushRepository, policy: pushPolicy),
        vapidPublicKey: { try await vapid.current().publicKey })
    let digest = OpenSSLContentDigest.sha256Hex

    // Background work, once the schema is migrated. The session and marks caches are used only
    // while their listener hears the database's account changes.
    let migrated = OneTimeSignal(signalled: !configuration.migrateOnStart)
    let sessionListener: [any Service] =
        configuration.sessionCacheLifetime > 0 || configuration.marksCacheLifetime > 0
        ? [
            SessionInvalidationListener(
                database: configuration.database, cache: sessions, marks: marks, feedPages: feedPages, startAfter: migrated,
                logger: databaseLogger)
        ]
        : []
    // Every instance, jobs or not, reads the operators' switches (each must know about
    // maintenance) and writes the views it noted.
    let everyInstance: [any Service] = [
        OperatorSwitchesRefresher(
            operators: operators, switches: switches, interval: configuration.operatorSwitchesInterval, startAfter: migrated, logger: logger),
        ViewFlushJob(
            views: views, storage: PostgresViews(database: database), interval: configuration.viewFlushInterval, startAfter: migrated, logger: logger),
        LiveNotificationListener(
            database: configuration.database, notifications: notifications, live: live, startAfter: migrated, logger: databaseLogger),
        PushClientLifetime(client: pushClient),
    ]
    let jobs: [any Service] =
        configuration.backgroundJobs
        ? [
            PopularRankingJob(cards: cardRepository, startAfter: migrated, logger: logger),
            StoryExpiryJob(cards: cards.cards, startAfter: migrated, logger: logger),
            PollClosingJob(cards: cards.cards, startAfter: migrated, logger: logger),
            NewCardNotificationsJob(notifications: notifications, startAfter: migrated, logger: logger),
            ExpiredRecordsJob(identity: identityRepository, cards: cardRepository, startAfter: migrated, logger: logger),
            RetentionJob(notifications: notifications, identity: identityRepository, images: images, startAfter: migrated, logger: logger),
            PhotoScrubJob(images: images, digest: digest, startAfter: migrated, logger: logger),
            PlannerStatisticsJob(statistics: PlannerStatistics(database: database), startAfter: migrated, logger: logger),
            FollowingInboxJob(inbox: FollowingInbox(database: database), startAfter: migrated, logger: logger),
            PushDeliveryJob(
                deliver: DeliverPushes(
                    repository: pushRepository, senders: senders, metrics: .soom, lease: configuration.push.lease,
                    retryBase: configuration.push.retryBase),
                repository: pushRepository, interval: configuration.push.deliveryInterval, startAfter: migrated, logger: logger),
        ] : []

    // HTTP
    let router = buildRouter(
        identity: identity, cards: cards, tags: tags, people: people, notifications: notifications, live: live,
        streamKeepAlive: configuration.streamKeepAlive, push: push, images: images, operators: operators,
        switches: switches, readiness: database,
        digest: digest, catalog: EndpointCatalog(), rateLimits: configuration.rateLimits, trustForwardedFor: configuration.trustForwardedFor,
        metricsToken: configuration.metricsToken)
    var app = Application(
        router: router,
        server: .soom(
            headTimeout: configuration.requestHeadTimeout, idleTimeout: configuration.idleTimeout,
            connectionsPerAddress: configuration.trustForwardedFor ? nil : configuration.connectionsPerAddress,
            bodyGrace: configuration.requestBodyGrace),
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "soom"),
        services: [client] + everyInstance + sessionListener + jobs,
        onServerRunning: { channel in await configuration.onServerRunning?(channel.localAddress?.port ?? 0) },
        logger: logger
    )
    app.beforeServerStarts {
        if configuration.migrateOnStart {
            try await migrateWhenReachable(configuration.database, client: client, logger: logger, databaseLogger: databaseLogger)
            migrated.signal()
        }
        // The VAPID key before the first request, so that no read makes it (it is loaded again
        // on first use if the database cannot be reached now).
        do {
            _ = try await vapid.current()
        } catch {
            logger.warning("the VAPID key is not loaded yet; retrying on first use", metadata: ["error": "\(loggableDescription(of: error))"])
        }
        // The switches before the first request (the refresher keeps them fresh from here on).
        do {
            switches.update(try await operators.switches())
        } catch {
            logger.warning("operators' switches not read yet; retrying", metadata: ["error": "\(loggableDescription(of: error))"])
        }
    }
    return app
}
