import Foundation
import PostgresNIO
import SoomDomain

/// A feed page read by a prepared statement, parsed once per connection and — after PostgreSQL's
/// first five executions — planned once too: the feed's own parameters (`bindSubject`), then the
/// cursor (`FeedPosition.top` on a first page, so one statement serves every page) and the page's
/// rows.
///
/// A page's `LIMIT $n` alone would keep PostgreSQL re-planning every execution: not knowing `$n`,
/// its generic plan assumes a tenth of the table and looks far dearer than the custom plans, so it
/// never switches (and a generic plan that costly would also be JIT-compiled). Hence the page is
/// read from a subquery with the constant bound `CardStatements.maximumPageRows` and cut to `$n` outside; rows are
/// pulled one by one, so only `$n` are ever read, and the generic plan is as cheap as it is.
protocol PageStatement: NamedStatement {
    /// Where the page starts: nil for the first page.
    var position: FeedPosition? { get }
    /// The rows to read: the page's size and one more, which says whether another page follows.
    var rows: Int { get }
    /// Appends the feed's own parameters, which come before the cursor's.
    func bindSubject(to bindings: inout PostgresBindings)
}

extension PageStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        self.bindSubject(to: &bindings)
        let position = self.position ?? .top
        bindings.append(position.createdAtMicros)
        bindings.append(position.id)
        bindings.append(min(self.rows, CardStatements.maximumPageRows))
        return bindings
    }
}

extension FeedPosition {
    /// Above every card: where a first page starts (year 2255 — `created_at` is the server's
    /// clock — and the greatest ID).
    static let top = FeedPosition(
        createdAtMicros: 9_000_000_000_000_000, id: UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
}

extension FeedPage {
    /// A page from `limit + 1` rows in the feed's order: the extra row only says that another page follows.
    init(rows: [(card: Card, micros: Int64)], limit: Int) {
        let page = rows.prefix(limit)
        self.init(
            cards: page.map(\.card), next: rows.count > limit ? page.last.map { FeedPosition(createdAtMicros: $0.micros, id: $0.card.id) } : nil)
    }
}

/// A page statement that also has a form reading only the page's positions (`positionsSQL`),
/// with the same bindings, for pages whose cards come from `FeedPageCache`.
protocol PositionsStatement: CardRowStatement {
    static var positionsSQL: String { get }
}

/// The positions form of `Base`: the same bindings, `Base.positionsSQL`, rows of ID and microseconds.
struct PositionsRead<Base: PositionsStatement>: PositionRowStatement {
    static var sql: String { Base.positionsSQL }

    let base: Base

    func makeBindings() throws -> PostgresBindings { try self.base.makeBindings() }
}
