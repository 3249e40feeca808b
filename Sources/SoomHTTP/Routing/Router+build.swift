import Hummingbird
import SoomDomain

/// All routes: operations outside `/v1`, the public and the authenticated parts of `/v1`, and
/// `405` for wrong methods on known paths. With a `rateLimiter`, every `/v1` route is limited by the
/// limit it was registered with (per account once authenticated, else per client address); during
/// maintenance (`switches`) its writes are refused first. It takes only the domain's
/// environments and ports: `readiness` answers `/readyz`, `digest` is the SHA-256 behind uploads'
/// and built-in files' `ETag`s. The composition root (`SoomApp`) calls it; tests call it for the route list.
public func buildRouter(
    identity: IdentityEnvironment, cards: CardEnvironment, tags: TagEnvironment, people: PeopleEnvironment,
    notifications: any NotificationRepository, live: LiveNotifications = LiveNotifications(), streamKeepAlive: Duration = .seconds(15),
    push: PushEnvironment, images: any ImageStore, operators: any OperatorRepository, switches: OperatorSwitches,
    readiness: any ReadinessProbe, digest: @escaping ContentDigest,
    catalog: EndpointCatalog, rateLimits: RateLimits? = nil, trustForwardedFor: Bool = false, metricsToken: String? = nil
) -> Router<AppRequestContext> {
    let rateLimiter = rateLimits.map { RateLimiter(limits: $0) }
    let router = Router(context: AppRequestContext.self)
    // Outermost first: the request line and ID see the final status; metrics count what
    // ErrorMiddleware answered, by route template.
    router.add(middleware: NoSniffMiddleware())
    router.add(middleware: NoStoreMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: ExactPathMiddleware(catalog: catalog))

    // Each /v1 route gets its own group: limited per address before its session is looked up,
    // then per account once it is known (see RateLimitMiddleware), against the route's limit.
    // A write refused during maintenance is refused last, just before its handler: counted and
    // answered with the route's `RateLimit-*` headers, like every answer of a limited route.
    func limited(_ kind: RateLimits.Kind, refusedInMaintenance: Bool, session: AuthenticationMiddleware? = nil) -> RouterGroup<AppRequestContext> {
        let group = router.group("/v1")
        if let rateLimiter {
            group.add(
                middleware: RateLimitMiddleware<AppRequestContext>(
                    limiter: rateLimiter, kind: kind, trustForwardedFor: trustForwardedFor, sessionFollows: session != nil,
                    peerAddress: \.peerAddress))
        }
        if let session {
            group.add(middleware: session)
            if let rateLimiter {
                group.add(middleware: AccountRateLimitMiddleware<AppRequestContext>(limiter: rateLimiter, kind: kind) { $0.caller?.account.id })
            }
        }
        if refusedInMaintenance { group.add(middleware: MaintenanceMiddleware<AppRequestContext>(switches: switches)) }
        return group
    }
    let root = router.group()
    let v1 = APIRoutes { limited($0, refusedInMaintenance: $1) }
    let required = AuthenticationMiddleware(authenticate: Authenticate(identity))
    let signedIn = APIRoutes { limited($0, refusedInMaintenance: $1, session: required).group(context: AuthenticatedContext.self) }
    // Public routes that also accept a session (a token, when sent, must be valid).
    let optional = AuthenticationMiddleware(authenticate: Authenticate(identity), required: false)
    let maybeSignedIn = APIRoutes { limited($0, refusedInMaintenance: $1, session: optional) }

    OperationsController(readiness: readiness, metricsToken: metricsToken).addRoutes(to: root)
    WebClientController(assets: WebAssets(digest: digest)).addRoutes(to: root)
    IdentityController(environment: identity).addRoutes(public: v1, authenticated: signedIn)
    CardsController(cards: cards).addRoutes(to: signedIn)
    FeedsController(cards: cards).addRoutes(to: signedIn)
    TagsController(tags: tags, cards: cards).addRoutes(optionalSession: maybeSignedIn, authenticated: signedIn)
    PeopleController(people: people).addRoutes(to: signedIn)
    NotificationsController(notifications: notifications, live: live, keepAlive: streamKeepAlive).addRoutes(to: signedIn)
    PushController(push: push).addRoutes(public: v1, authenticated: signedIn)
    NoticesController(operators: operators, switches: switches).addRoutes(to: v1)
    // The uploads' storage quota is one of the limits: off with them (`SOOM_RATE_LIMIT=off`).
    let quota = rateLimits.map { UploadQuota(bytes: $0.uploadBytes.count, window: Double($0.uploadBytes.window)) } ?? .unbounded
    ImagesController(store: images, upload: UploadPhoto(store: images, digest: digest, quota: quota), defaults: DefaultImages(digest: digest))
        .addRoutes(public: v1, authenticated: signedIn)

    // The router's own list of routes is the catalogue (405s and the openapi.yaml check).
    catalog.load(from: router)
    return router
}
