import PostgresNIO
import Synchronization

/// A prepared statement whose name is made once per type, not at every execution.
///
/// PostgresNIO names a statement `String(reflecting: Self.self)` by default and reads the name at
/// every execution (to find the connection's prepared copy). Building that string demangles the
/// type's name: 0.8 % of the server's CPU on an uncached tag feed page (perf, 1M cards). The name
/// is the same as PostgresNIO's, made once and then read from a table.
protocol NamedStatement: PostgresPreparedStatement {}

extension NamedStatement {
    static var name: String { StatementNames.name(of: Self.self) }
}

/// The statements' names by type: a few dozen entries, filled as each statement first runs.
enum StatementNames {
    private static let names = Mutex<[ObjectIdentifier: String]>([:])

    /// `String(reflecting: type)`, made once per type.
    static func name(of type: any Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = Self.names.withLock({ $0[key] }) { return name }
        let name = String(reflecting: type)
        Self.names.withLock { $0[key] = name }
        return name
    }
}
