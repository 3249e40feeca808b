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

    /// The mutation's case name, for `soom_reactor_mutations_total`. The default reflects on the
    /// mutation (`Mirror`), which decodes its payload's type on every call: a reactor on a hot
    /// path names its cases itself.
    static func kind(of mutation: Mutation) -> String
}

extension Reactor {
    /// Runs an action through `mutate` and folds the mutations with `reduce`; mutations are
    /// logged at debug level (their descriptions never contain secrets) and counted by kind.
    public func run(_ action: Action, logger: Logger) async throws -> State {
        let mutations = try await self.mutate(action: action)
        let name = String(describing: Self.self)
        for mutation in mutations { BusinessMetrics.count(Self.kind(of: mutation), of: name) }
        if logger.logLevel <= .debug {
            logger.debug(
                "reactor mutations",
                metadata: ["reactor": "\(Self.self)", "mutations": .array(mutations.map { .string(String(describing: $0)) })])
        }
        return mutations.reduce(self.initialState, Self.reduce)
    }

    public static func kind(of mutation: Mutation) -> String {
        Mirror(reflecting: mutation).children.first?.label ?? String(describing: mutation)
    }
}
