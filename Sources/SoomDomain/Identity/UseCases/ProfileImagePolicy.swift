import Foundation

/// A picture as a client chooses it (a profile picture or a card background): `{"default": name}` or `{"imageId": id}`.
public enum ImageChoice: Sendable, Equatable {
    case builtIn(String)
    case upload(String)
}

/// Turns a client's choice into an image reference: a built-in background that exists, or an
/// image the same account uploaded. Anything else is `422 validation_failed` on `profileImage`.
struct ProfileImagePolicy: Sendable {
    let environment: IdentityEnvironment

    init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    func resolve(_ choice: ImageChoice?, for accountID: UUID) async throws -> ImageReference? {
        switch choice {
        case nil:
            return nil
        case .builtIn(let name):
            guard DefaultBackground.named(name) != nil else {
                throw SoomError.validationFailed(field: "profileImage", "There is no built-in image named '\(name.prefix(64))'.")
            }
            return .builtIn(name: name)
        case .upload(let id):
            guard try await self.environment.repository.isUpload(id, ownedBy: accountID) else {
                throw SoomError.validationFailed(field: "profileImage", "No image with that id was uploaded by this account.")
            }
            return .upload(id: id)
        }
    }
}

extension ImageChoice {
    /// The reference stored for this choice (ownership and existence are checked elsewhere).
    public var reference: ImageReference {
        switch self {
        case .builtIn(let name): .builtIn(name: name)
        case .upload(let id): .upload(id: id.lowercased())
        }
    }
}
