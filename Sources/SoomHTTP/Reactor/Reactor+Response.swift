import Hummingbird

/// A reactor state that can be sent as an HTTP response.
public protocol ResponseState: Sendable {
    /// The response for this state.
    /// - Throws: when the state is not a final one (a reactor bug: it produced no mutation).
    func response() throws -> Response
}

extension Reactor where State: ResponseState {
    /// The adapter every route uses: run the action, answer with the resulting state.
    public func respond(to action: Action, context: some RequestContext) async throws -> Response {
        try await self.run(action, logger: context.logger).response()
    }
}

/// A reactor finished without reaching a state it can answer with: a programming error.
struct IncompleteReactorState: Error, CustomStringConvertible {
    let state: String
    var description: String { "reactor ended in a non-final state: \(self.state)" }
}
