import HTTPTypes

/// An error on its way out, with headers a middleware it passed adds to its answer (a limited
/// route's `RateLimit-*`). `ErrorMiddleware` maps `error` as always and appends `headers`: the
/// middleware adds headers without mapping the error itself.
struct HeaderedError: Error {
    let error: any Error
    let headers: HTTPFields
}
