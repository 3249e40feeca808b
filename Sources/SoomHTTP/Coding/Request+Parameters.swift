import Foundation
import Hummingbird
import SoomDomain

extension Request {
    /// `limit` and `cursor` of a list request: a `limit` that is not a whole number is `400`,
    /// one out of 1…50 is `422` (`PageRequest`).
    func pageRequest() throws -> PageRequest {
        let query = self.uri.queryParameters
        return try PageRequest(limit: try Self.integer(query.get("limit"), field: "limit"), cursor: query.get("cursor"))
    }

    /// A required numeric query parameter: missing or not a number is `400 invalid_request`.
    func requiredNumber(_ name: String) throws -> Double {
        guard let text = self.uri.queryParameters.get(name) else {
            throw SoomError.invalidRequest("The query parameter '\(name)' is required.", field: name)
        }
        guard text.utf8.count <= 32, let value = Double(text), value.isFinite else {
            throw SoomError.invalidRequest("The query parameter '\(name)' must be a number.", field: name)
        }
        return value
    }

    static func integer(_ text: String?, field: String) throws -> Int? {
        guard let text else { return nil }
        guard text.utf8.count <= 18, let value = Int(text) else {
            throw SoomError.invalidRequest("The query parameter '\(field)' must be a whole number.", field: field)
        }
        return value
    }
}

extension RequestContext {
    /// A path ID: IDs are UUIDs, so anything else names nothing (`404`).
    func pathID(_ name: String = "id") throws -> UUID {
        guard let text = self.parameters.get(name), let id = UUID(uuidString: text) else {
            throw APIError.notFound
        }
        return id
    }
}
