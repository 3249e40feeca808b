import Hummingbird
import Logging
import PostgresNIO
import SoomData
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

    // Data
    let client = PostgresClient(configuration: configuration.database.clientConfiguration, backgroundLogger: logger)
    let database = Database(client: client, logger: logger)
    let identity = IdentityEnvironment(repository: PostgresIdentityRepository(database: database), crypto: OpenSSLIdentityCrypto())

    // HTTP
    let catalog = EndpointCatalog()
    let router = buildRouter(identity: identity, database: database, catalog: catalog)

    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "soom"),
        services: [client],
        logger: logger
    )
    if configuration.migrateOnStart {
        app.beforeServerStarts {
            let applied = try await Migrator(client: client, migrations: try Migration.bundled(), logger: logger).migrate()
            logger.info("database schema is up to date", metadata: ["applied": "\(applied.count)", "database": "\(configuration.database)"])
        }
    }
    return app
}

/// All routes: operations outside `/v1`, the public and the authenticated parts of `/v1`, and
/// `405` for wrong methods on known paths. Exposed for tests that check the route list.
func buildRouter(identity: IdentityEnvironment, database: Database, catalog: EndpointCatalog) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ErrorMiddleware())

    let root = CatalogedRoutes(group: router.group(), prefix: "", catalog: catalog)
    let v1 = CatalogedRoutes(group: router.group("/v1"), prefix: "/v1", catalog: catalog)
    let signedIn = CatalogedRoutes(
        group: router.group("/v1").add(middleware: AuthenticationMiddleware(authenticate: Authenticate(identity)))
            .group(context: AuthenticatedContext.self),
        prefix: "/v1", catalog: catalog)

    OperationsController(database: database).addRoutes(to: root)
    IdentityController(environment: identity).addRoutes(public: v1, authenticated: signedIn)

    catalog.installMethodNotAllowed(on: router)
    return router
}
