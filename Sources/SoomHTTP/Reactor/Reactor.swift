import Logging

/// One request's worth of behaviour, in the ReactorKit shape.
///
/// The request becomes an `Action`. `mutate` is the only place with side effects: it performs
/// them (through use cases) and returns the `Mutation`s that describe what happened. `reduce`
/// is purely functional: it folds one mutation into the state, and the final `State` becomes
/// the response. Unlike ReactorKit, errors are never swallowed: whatever `mutate` throws
/// reaches the HTTP layer, which turns it into the contract's JSON error.
public protocol Reactor: Sendable {
    associatedtype Action: Sendable
    associatedtype Mutation: Sendable
    associatedtype State: Sendable & Equatable

    /// The state before any mutation.
    var initialState: State { get }

    /// Performs the action's effects and reports them as mutations.
    func mutate(action: Action) async throws -> [Mutation]

    /// The state after `mutation`. Pure: no effects, no throwing, no time, no randomness.
    static func reduce(state: State, mutation: Mutation) -> State

    /// Counts what the mutation did for people in `BusinessMetrics` (a card posted, a like, a
    /// sign-up), the one place each such fact is counted. The default counts nothing: requests
    /// by route and status are counted for every endpoint by `MetricsMiddleware`.
    static func count(_ mutation: Mutation)
}

extension Reactor {
    /// Runs an action through `mutate` and folds the mutations with `reduce`; mutations are
    /// logged at debug level (their descriptions never contain secrets) and counted (`count`).
    public func run(_ action: Action, logger: Logger) async throws -> State {
        let mutations = try await self.mutate(action: action)
        for mutation in mutations { Self.count(mutation) }
        if logger.logLevel <= .debug {
            logger.debug(
                "reactor mutations",
                metadata: ["reactor": "\(Self.self)", "mutations": .array(mutations.map { .string(String(describing: $0)) })])
        }
        return mutations.reduce(self.initialState, Self.reduce)
    }

    public static func count(_ mutation: Mutation) {}
}
