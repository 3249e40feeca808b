import PostgresNIO

/// A row's cells read in order, each decoded to the concrete type its call site names.
///
/// `PostgresRow.decode((A, B, …).self)` decodes through a parameter pack, which is not
/// specialised across modules: every row then looks up generic metadata per column. On a feed page
/// read with the page cache off, that was 7.5 % of the server's CPU and the card rows' decoding
/// 18 % in all. `PostgresCell.decode` is `@inlinable`, so `next(T.self)` compiles to `T`'s own
/// decoder. Used for the rows read on every request: cards and their positions.
struct RowCells {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        self.cells = row.makeIterator()
    }

    /// The next cell decoded as `T` (an `Optional` for a nullable column). Throws
    /// `RowCells.Exhausted` when the row has no more cells, PostgresNIO's `PostgresDecodingError`
    /// when the cell is not a `T`.
    @inline(__always)
    mutating func next<T: PostgresDecodable>(_: T.Type = T.self, file: String = #fileID, line: Int = #line) throws -> T {
        guard let cell = self.cells.next() else { throw Exhausted(type: "\(T.self)", file: file, line: line) }
        return try cell.decode(T.self, file: file, line: line)
    }

    /// A row had fewer columns than its decoder reads: a statement and its decoder disagree.
    struct Exhausted: Error, CustomStringConvertible {
        let type: String
        let file: String
        let line: Int

        var description: String { "the row has no column left for a \(self.type) (\(self.file):\(self.line))" }
    }
}
