import SoomDomain

/// Why seeding did not happen; each message says what to do.
public enum SeedError: Error, CustomStringConvertible, Sendable, Equatable {
    case databaseNotEmpty(accounts: Int)
    case invalidPlan(String)
    case nicknamesExhausted(Int)
    /// Rows that would violate a foreign key (a bug): nothing was written.
    case brokenReferences(Int)

    public var description: String {
        switch self {
        case .databaseNotEmpty(let accounts):
            "The database already has \(accounts) account\(accounts == 1 ? "" : "s"); seeding is meant for an empty one. "
                + "Use --force to add the demo data next to them anyway, or point DATABASE_URL / --data-directory at an empty database."
        case .invalidPlan(let reason):
            "Cannot seed: \(reason)."
        case .nicknamesExhausted(let count):
            "Cannot make \(count) distinct nicknames of at most \(Nickname.maximumLength) characters; seed fewer accounts."
        case .brokenReferences(let count):
            "Seeding stopped before committing: \(count) generated rows reference rows that do not exist. Nothing was written."
        }
    }
}
