extension Seeder {
    /// How much to create.
    public struct Plan: Sendable, Equatable {
        /// Accounts to create.
        public var accounts: Int
        /// Top-level cards.
        public var cards: Int
        /// Comment cards (cards with a parent).
        public var comments: Int
        /// Likes: unique (card, account) pairs.
        public var likes: Int
        /// `created_at` spreads over this many days before now.
        public var days: Int
        /// Rows per generating or writing statement.
        public var chunkSize: Int

        public init(
            accounts: Int = 50_000, cards: Int = 1_000_000, comments: Int = 200_000, likes: Int = 2_000_000, days: Int = 60,
            chunkSize: Int = 200_000
        ) {
            self.accounts = accounts
            self.cards = cards
            self.comments = comments
            self.likes = likes
            self.days = days
            self.chunkSize = chunkSize
        }

        /// Throws `SeedError.invalidPlan` naming the first impossible number.
        public func validate() throws(SeedError) {
            if self.accounts < 1 || self.accounts > 100_000_000 { throw .invalidPlan("accounts must be between 1 and 100,000,000") }
            if self.cards < 0 || self.cards > 1_000_000_000 { throw .invalidPlan("cards must be between 0 and 1,000,000,000") }
            if self.comments < 0 || self.comments > 1_000_000_000 { throw .invalidPlan("comments must be between 0 and 1,000,000,000") }
            if self.likes < 0 || self.likes > 2_000_000_000 { throw .invalidPlan("likes must be between 0 and 2,000,000,000") }
            if self.days < 1 || self.days > 3650 { throw .invalidPlan("days must be between 1 and 3650") }
            if self.chunkSize < 1_000 { throw .invalidPlan("chunk size must be at least 1,000") }
            if self.cards == 0 && (self.comments > 0 || self.likes > 0) {
                throw .invalidPlan("comments and likes need cards to attach to: use at least one card")
            }
            // Each card can be liked at most once per account.
            if Double(self.likes) > 0.5 * Double(self.cards + self.comments) * Double(self.accounts) {
                throw .invalidPlan("too many likes: at most half of cards × accounts can be unique (card, account) pairs here")
            }
        }
    }
}
