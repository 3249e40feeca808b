import PostgresNIO
import Testing

@testable import SoomData

@Suite("NamedStatement: every statement keeps PostgresNIO's name, made once")
struct NamedStatementTests {
    @Test("the names are PostgresNIO's default, one per type and per generic instantiation, the same on every read")
    func names() {
        let types: [any NamedStatement.Type] = [
            CardStatements.Detail.self, LatestFeed.Page.self, AuthorFeed.Positions.self,
            LatestFeed.Positions.self, PositionsRead<FollowingStatements.Page>.self,
            TagFeed.Page.self, FollowingStatements.Page.self, TagStatements.Ranked.self,
            NearbyStatements.Page<PrefixLength3>.self, NearbyStatements.Page<PrefixLength6>.self,
            NearbyStatements.Chunks<PrefixLength4>.self, SessionAccountStatement.self,
        ]
        var seen = Set<String>()
        for type in types {
            let name = type.name
            #expect(name == String(reflecting: type), "\(name)")
            #expect(type.name == name, "read again: \(name)")
            #expect(seen.insert(name).inserted, "\(name) is another statement's name")
        }
        #expect(seen.count == types.count)
    }

    @Test("many tasks reading names at once all see the same names")
    func concurrent() async {
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<200).map { index in
                        index.isMultiple(of: 2)
                            ? NearbyStatements.Page<PrefixLength5>.name : PositionsRead<FollowingStatements.Page>.name
                    }
                }
            }
            return await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        let expected: Set = [
            String(reflecting: NearbyStatements.Page<PrefixLength5>.self), String(reflecting: PositionsRead<FollowingStatements.Page>.self),
        ]
        #expect(names == expected)
    }
}
