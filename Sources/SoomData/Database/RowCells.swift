import PostgresNIO

/// A row's cells read in order, each decoded to the concrete type its call site names.
///
/// `PostgresRow.decode((A, B, …).self)` decodes through a parameter pack, which is not
/// specialised across modules: every row then looks up generic metadata per column. On a feed page
/// read with the page cache off, that was 7.5 % of the server's CPU and the card rows' decoding
/// 18 % in all. `PostgresCell.decode` is `@inlinable`, so `next(T.self)` compiles to `T`'s own
/// decoder. The one way a row is decoded: cell by cell in the order selected, with `next` where a
/// decoder reads a row part by part (a card, an account), or with `decode` for a short row read
/// whole.
public struct RowCells {
    private var cells: PostgresRow.Iterator

    public init(_ row: PostgresRow) {
        self.cells = row.makeIterator()
    }

    /// `row`'s cells decoded as `types`, in order: `RowCells.decode(row, UUID.self, Int.self)`
    /// is a `(UUID, Int)`. Cells after them are ignored.
    public static func decode<each T: PostgresDecodable>(
        _ row: PostgresRow, _ types: repeat (each T).Type, file: String = #fileID, line: Int = #line
    ) throws -> (repeat each T) {
        var cells = RowCells(row)
        return (repeat try cells.next(each types, file: file, line: line))
    }

    /// `row`'s first cell decoded as `T`: `decode` for a row of one column.
    public static func decode<T: PostgresDecodable>(_ row: PostgresRow, _ type: T.Type, file: String = #fileID, line: Int = #line) throws -> T {
        var cells = RowCells(row)
        return try cells.next(type, file: file, line: line)
    }

    /// The next cell decoded as `T` (an `Optional` for a nullable column). Throws
    /// `RowCells.Exhausted` when the row has no more cells, PostgresNIO's `PostgresDecodingError`
    /// when the cell is not a `T`.
    @inline(__always)
    public mutating func next<T: PostgresDecodable>(_: T.Type = T.self, file: String = #fileID, line: Int = #line) throws -> T {
        guard let cell = self.cells.next() else { throw Exhausted(type: "\(T.self)", file: file, line: line) }
        return try cell.decode(T.self, file: file, line: line)
    }

    /// The next cell, a `text[]`, as its strings.
    ///
    /// `next([String].self)` goes through PostgresNIO's conditional `Array: PostgresDecodable`
    /// conformance, whose witness table and element metadata are looked up at run time for every
    /// row. A card's tags are always a one-dimensional array without NULLs in binary format, read
    /// here directly; any other shape (text format, NULLs, more dimensions, a short buffer) is left
    /// to PostgresNIO's decoder, which decodes it or throws its usual `PostgresDecodingError`.
    mutating func nextTextArray(file: String = #fileID, line: Int = #line) throws -> [String] {
        guard let cell = self.cells.next() else { throw Exhausted(type: "[String]", file: file, line: line) }
        if let strings = Self.textArray(cell) { return strings }
        return try cell.decode([String].self, file: file, line: line)
    }

    /// `cell`'s strings when it is a binary, one-dimensional `text[]` or `varchar[]` without NULLs,
    /// nil otherwise. PostgreSQL's array format: the number of dimensions, a has-NULLs flag, the
    /// element type; per dimension its length and lower bound (1, as PostgresNIO requires); then
    /// each element's length and bytes.
    static func textArray(_ cell: PostgresCell) -> [String]? {
        guard cell.format == .binary, cell.dataType == .textArray || cell.dataType == .varcharArray, var bytes = cell.bytes,
            let dimensions = bytes.readInteger(endianness: .big, as: Int32.self),
            let hasNulls = bytes.readInteger(endianness: .big, as: Int32.self), hasNulls == 0,
            bytes.readInteger(endianness: .big, as: UInt32.self) != nil
        else { return nil }
        if dimensions == 0 { return bytes.readableBytes == 0 ? [] : nil }
        guard dimensions == 1, let count = bytes.readInteger(endianness: .big, as: Int32.self), count >= 0,
            bytes.readInteger(endianness: .big, as: Int32.self) == 1
        else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = bytes.readInteger(endianness: .big, as: Int32.self), length >= 0,
                let string = bytes.readString(length: Int(length))
            else { return nil }
            strings.append(string)
        }
        return bytes.readableBytes == 0 ? strings : nil
    }

    /// A row had fewer columns than its decoder reads: a statement and its decoder disagree.
    public struct Exhausted: Error, CustomStringConvertible {
        let type: String
        let file: String
        let line: Int

        public var description: String { "the row has no column left for a \(self.type) (\(self.file):\(self.line))" }
    }
}
