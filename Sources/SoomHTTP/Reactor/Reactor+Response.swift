import Hummingbird

/// A reactor state that can be sent as an HTTP response: every state is an answer.
public protocol ResponseState: Sendable {
    /// The response for this state.
    func response() -> Response
}

extension Reactor where State: ResponseState {
    /// The adapter every route uses: run the action, answer with the resulting state.
    public func respond(to action: Action, context: some RequestContext) async throws -> Response {
        try await self.run(action, logger: context.logger).response()
    }
}
