import Logging

/// One request's worth of behaviour, in the ReactorKit shape.
///
/// The request becomes an `Action`. `mutate` is the only place with side effects: it performs
/// them (through use cases) and returns the `Mutation`s that say what happened, each a fact (a
/// card stored, a like set). `transform` sees them once, on their way: it logs and counts them.
/// `reduce` is purely functional: it folds them, one at a time, into the `State`, starting from
/// none, and the final state becomes the response. Unlike ReactorKit, errors are never
/// swallowed: whatever `mutate` throws reaches `ErrorMiddleware`, which turns it into the
/// contract's JSON error; and mutations that fold into no state are a fault (`ReactorFault`,
/// `500 internal_error`), never a placeholder answer.
///
/// The common case needs only the three nested types, the use cases as `let`s, and the two
/// functions `mutate` and `reduce`; `counter(for:)` where a fact is counted for people.
public protocol Reactor: Sendable {
    associatedtype Action: Sendable
    associatedtype Mutation: Sendable
    associatedtype State: Sendable & Equatable

    /// Performs the action's effects and reports what happened as mutations, in order.
    func mutate(action: Action) async throws -> [Mutation]

    /// Sees every mutation once, between `mutate` and `reduce`, and may rewrite the list. The
    /// default logs them at debug level and counts them (`counter(for:)`): the one place both
    /// happen.
    func transform(_ mutations: [Mutation], logger: Logger) -> [Mutation]

    /// The state after `mutation`, from the state so far (nil before the first mutation); nil
    /// while the facts so far make no answer. Pure: no effects, no throwing, no time, no randomness.
    static func reduce(state: State?, mutation: Mutation) -> State?

    /// The `BusinessMetrics` counter the mutation's fact adds one to (a card posted, a like, a
    /// sign-up), the one place each such fact is named; nil for a fact not counted. The default
    /// counts nothing: requests by route and status are counted for every endpoint by
    /// `MetricsMiddleware`.
    static func counter(for mutation: Mutation) -> BusinessMetrics?
}

extension Reactor {
    /// Runs an action: `mutate`, then `transform`, then the mutations folded with `reduce`.
    /// - Throws: what `mutate` throws; `ReactorFault` when the mutations fold into no state.
    public func run(_ action: Action, logger: Logger) async throws -> State {
        let mutations = self.transform(try await self.mutate(action: action), logger: logger)
        guard let state = mutations.reduce(nil, Self.reduce) else { throw ReactorFault(reactor: "\(Self.self)") }
        return state
    }

    /// Logs the mutations at debug level (their descriptions never contain secrets) and adds one
    /// to each one's counter; the list passes unchanged.
    public func transform(_ mutations: [Mutation], logger: Logger) -> [Mutation] {
        for mutation in mutations { Self.counter(for: mutation)?.increment() }
        if logger.logLevel <= .debug {
            logger.debug(
                "reactor mutations",
                metadata: ["reactor": "\(Self.self)", "mutations": .array(mutations.map { .string(String(describing: $0)) })])
        }
        return mutations
    }

    public static func counter(for mutation: Mutation) -> BusinessMetrics? { nil }
}

/// A reactor whose mutations folded into no state: a use case that neither answered nor threw.
/// A fault of the server, logged and answered `500 internal_error` by `ErrorMiddleware`.
public struct ReactorFault: Error, CustomStringConvertible {
    public let reactor: String
    public var description: String { "\(self.reactor) reported no fact to answer with" }
}
