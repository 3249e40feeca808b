import Foundation
import NIOCore
import PostgresNIO
import Testing

@testable import SoomData

@Suite("RowCells: a card's tags decoded without PostgresNIO's generic array path")
struct RowCellsTests {
    /// Each array as PostgreSQL sends it, and what it holds; `nil` where PostgresNIO's own
    /// decoder refuses it too (NULL elements, two dimensions, a lower bound other than 1).
    static let arrays: [(sql: String, strings: [String]?)] = [
        ("'{}'::text[]", []),
        ("ARRAY['일상']::text[]", ["일상"]),
        ("ARRAY['일상', 'cafe', '', 'with \"quotes\" and \\ and ,{}', '🌙👩‍👩‍👧']::text[]", ["일상", "cafe", "", "with \"quotes\" and \\ and ,{}", "🌙👩‍👩‍👧"]),
        ("ARRAY['a', 'b']::varchar[]", ["a", "b"]),
        ("(SELECT array_agg('t' || i) FROM generate_series(1, 300) i)", (1...300).map { "t\($0)" }),
        ("ARRAY['a', NULL]::text[]", nil),
        ("ARRAY[['a', 'b'], ['c', 'd']]::text[]", nil),
        ("'[0:1]={a,b}'::text[]", nil),
    ]

    @Test("every shape PostgreSQL sends decodes as PostgresNIO's decoder does, or fails as it does")
    func agreesWithPostgresNIO() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            for (sql, expected) in Self.arrays {
                let row = try #require(try await database.rows(PostgresQuery(unsafeSQL: "SELECT \(sql), 1")).first)
                var cells = RowCells(row)
                if let expected {
                    #expect(try cells.nextTextArray() == expected, "\(sql)")
                    #expect(try row.decode(([String], Int).self).0 == expected, "\(sql)")
                    #expect(try cells.next(Int.self) == 1, "the cursor moved to the next cell: \(sql)")
                } else {
                    #expect(throws: PostgresDecodingError.self, "\(sql)") { try cells.nextTextArray() }
                    #expect(throws: PostgresDecodingError.self, "\(sql)") { try row.decode(([String], Int).self) }
                }
            }
        }
    }

    @Test("a damaged or foreign buffer is never read past its end: the fast path declines it (and PostgresNIO decides)")
    func damaged() throws {
        var whole = ByteBuffer()
        whole.writeInteger(Int32(1))  // dimensions
        whole.writeInteger(Int32(0))  // no NULLs
        whole.writeInteger(PostgresDataType.text.rawValue)
        whole.writeInteger(Int32(2))  // two elements
        whole.writeInteger(Int32(1))  // lower bound
        for tag in ["숨", "sky"] {
            whole.writeInteger(Int32(tag.utf8.count))
            whole.writeString(tag)
        }
        #expect(RowCells.textArray(Self.cell(whole)) == ["숨", "sky"])

        for cut in [1, 4, 13, 21, whole.readableBytes - 1] {
            let short = whole.getSlice(at: 0, length: whole.readableBytes - cut)!
            #expect(RowCells.textArray(Self.cell(short)) == nil, "cut \(cut)")
        }
        var trailing = whole
        trailing.writeInteger(UInt8(0))
        #expect(RowCells.textArray(Self.cell(trailing)) == nil, "bytes after the last element")
        var negative = whole.getSlice(at: 0, length: 20)!
        negative.writeInteger(Int32(-5))
        #expect(RowCells.textArray(Self.cell(negative)) == nil, "a negative length (a NULL) is not a string")

        #expect(RowCells.textArray(Self.cell(whole, format: .text)) == nil)
        #expect(RowCells.textArray(Self.cell(whole, type: .int4Array)) == nil)
        #expect(RowCells.textArray(Self.cell(nil)) == nil, "a NULL array")
    }

    static func cell(_ bytes: ByteBuffer?, type: PostgresDataType = .textArray, format: PostgresFormat = .binary) -> PostgresCell {
        PostgresCell(bytes: bytes, dataType: type, format: format, columnName: "tags", columnIndex: 0)
    }
}
