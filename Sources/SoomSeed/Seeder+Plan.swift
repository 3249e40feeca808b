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
        /// Follows: unique (follower, followee) pairs of distinct seeded accounts; `nil` means the
        /// default, 20 per account (at most every possible pair).
        public var follows: Int?
        /// Favourite tags: unique (account, tag) pairs, at most `maximumFavoritesPerAccount` per
        /// account; `nil` means the default, 2 per account.
        public var favorites: Int?
        /// `created_at` spreads over this many days before now.
        public var days: Int
        /// Rows per generating or writing statement.
        public var chunkSize: Int

        /// The contract's limit of favourite tags per account (`422 favorite_limit` beyond it).
        public static let maximumFavoritesPerAccount = 9

        public init(
            accounts: Int = 50_000, cards: Int = 1_000_000, comments: Int = 200_000, likes: Int = 2_000_000, follows: Int? = nil,
            favorites: Int? = nil, days: Int = 60, chunkSize: Int = 200_000
        ) {
            self.accounts = accounts
            self.cards = cards
            self.comments = comments
            self.likes = likes
            self.follows = follows
            self.favorites = favorites
            self.days = days
            self.chunkSize = chunkSize
        }

        /// Every possible follow among `accounts` accounts: each may follow each other one.
        public var possibleFollows: Int { self.accounts * max(0, self.accounts - 1) }

        /// The follows to create: `follows`, or 20 per account (at most every possible pair).
        public var followCount: Int { self.follows ?? min(20 * self.accounts, self.possibleFollows) }

        /// The favourite tags to create: `favorites`, or 2 per account.
        public var favoriteCount: Int { self.favorites ?? 2 * self.accounts }

        /// Throws `SeedError.invalidPlan` naming the first impossible number.
        public func validate() throws(SeedError) {
            if self.accounts < 1 || self.accounts > 100_000_000 { throw .invalidPlan("accounts must be between 1 and 100,000,000") }
            if self.cards < 0 || self.cards > 1_000_000_000 { throw .invalidPlan("cards must be between 0 and 1,000,000,000") }
            if self.comments < 0 || self.comments > 1_000_000_000 { throw .invalidPlan("comments must be between 0 and 1,000,000,000") }
            if self.likes < 0 || self.likes > 2_000_000_000 { throw .invalidPlan("likes must be between 0 and 2,000,000,000") }
            if self.followCount < 0 || self.followCount > 2_000_000_000 { throw .invalidPlan("follows must be between 0 and 2,000,000,000") }
            if self.followCount > self.possibleFollows {
                throw .invalidPlan(
                    "too many follows: \(self.accounts) accounts can make at most accounts × (accounts − 1) = \(self.possibleFollows) (nobody follows themselves or anyone twice)"
                )
            }
            if self.favoriteCount < 0 || self.favoriteCount > Self.maximumFavoritesPerAccount * self.accounts {
                throw .invalidPlan(
                    "favorites must be between 0 and \(Self.maximumFavoritesPerAccount) × accounts (at most \(Self.maximumFavoritesPerAccount) favourite tags per account)"
                )
            }
            if self.favoriteCount > 0 && self.cards == 0 {
                throw .invalidPlan("favourite tags are drawn from the tags that cards carry: use at least one card, or --favorites 0")
            }
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
