import PostgresNIO
import SoomDomain

/// What a PostgreSQL error means to `Database` and the repositories: a timeout, a lost connection,
/// a vanished reference, a transient conflict, a unique violation.
extension PSQLError {
    /// PostgreSQL ended the statement at `statement_timeout` (57014), a lock wait at `lock_timeout`
    /// (55P03), or the transaction at `idle_in_transaction_session_timeout` (25P03).
    var isTimeout: Bool {
        self.code == .server && ["57014", "55P03", "25P03"].contains(self.serverInfo?[.sqlState] ?? "")
    }

    /// Failures of the connection rather than of the statement: the database is down, restarting or unreachable.
    var isConnectionFailure: Bool {
        switch self.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown, .sslUnsupported,
            .failedToAddSSLHandler:
            return true
        case .server:
            // Class 08 (connection exception), 57P01-03 (shutdown, crash, starting up), 53300 (too many connections).
            let state = self.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
        default:
            return false
        }
    }

    /// What a foreign-key violation (23503) means when the row it names was deleted while the
    /// request ran (its checks had found it a moment before):
    /// - a column holding the *caller's* account: the account withdrew after its session was
    ///   checked (perhaps from the session cache), so `401 unauthorized`, as if the token had been refused;
    /// - a column holding the card acted on: the card was deleted meanwhile, so `404`, as a moment later.
    /// Every key in these sets cascades on delete (a test checks the schema), so the violation can
    /// only come from the inserting side. Any other violation is a defect and stays a 500.
    var vanishedReference: SoomError? {
        guard self.code == .server, self.serverInfo?[.sqlState] == "23503", let constraint = self.serverInfo?[.constraintName] else { return nil }
        if Self.callerAccountReferences.contains(constraint) { return .unauthorized }
        if Self.cardReferences.contains(constraint) { return .cardNotFound }
        return nil
    }

    /// Every foreign key to `accounts` is in exactly one of these two sets (a test checks this
    /// against the schema): the columns a request fills with its caller's id …
    static let callerAccountReferences: Set<String> = [
        "images_owner_id_fkey", "sessions_account_id_fkey", "transfer_codes_account_id_fkey", "cards_author_id_fkey",
        "likes_account_id_fkey", "idempotency_keys_account_id_fkey", "favorite_tags_account_id_fkey", "follows_follower_id_fkey",
        "blocks_blocker_id_fkey", "reports_reporter_id_fkey", "notifications_actor_id_fkey", "card_views_viewer_id_fkey",
        "profile_visits_visitor_id_fkey", "poll_ballots_account_id_fkey", "notification_settings_account_id_fkey",
        "push_subscriptions_account_id_fkey", "follower_notification_outbox_author_id_fkey",
    ]
    /// … and those that name someone else (left alone: their writers check the target themselves).
    static let targetAccountReferences: Set<String> = [
        "follows_followee_id_fkey", "blocks_blocked_id_fkey", "notifications_recipient_id_fkey", "profile_visits_owner_id_fkey",
    ]
    /// The foreign keys to `cards` but `card_tags_card_id_fkey`, which guards tag counts against
    /// a card's deletion at commit and must never fire.
    static let cardReferences: Set<String> = [
        "likes_card_id_fkey", "notifications_card_id_fkey", "tag_notification_outbox_card_id_fkey", "reports_card_id_fkey",
        "card_views_card_id_fkey", "poll_ballots_card_id_fkey", "follower_notification_outbox_card_id_fkey",
    ]

    /// A deadlock (`40P01`) or serialization failure (`40001`): nothing was committed, and the same
    /// work may succeed when run again.
    var isTransientConflict: Bool {
        guard self.code == .server, let state = self.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// The SQLSTATE and constraint of a server error (e.g. `23505` and `accounts_nickname_key_unique`).
    public var uniqueViolationConstraint: String? {
        guard self.code == .server, self.serverInfo?[.sqlState] == "23505" else { return nil }
        return self.serverInfo?[.constraintName]
    }
}
