import Logging
import NIOSSL
import PostgresNIO

/// The first contact with PostgreSQL at start-up, before the pool is trusted with it.
///
/// The pool retries every failure alike and gives up only after about a minute with an opaque
/// circuit-breaker error. One direct connection tells the cases apart: a wrong password, an
/// unknown database or role, or a TLS mismatch stops the server at once with PostgreSQL's own
/// message; a database that is still starting (refused, timed out) is waited for, with a line
/// every few seconds, up to `patience`. The password never appears in a message.
public enum DatabaseProbe {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func waitUntilReachable(_ configuration: DatabaseConfiguration, logger: Logger, patience: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var nextNotice = clock.now
        while true {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: Self.connectionConfiguration(configuration), id: 0, logger: logger)
                try await connection.close()
                return
            } catch let error as PSQLError where error.code == .server {
                let state = error.serverInfo?[.sqlState] ?? "?"
                let message = error.serverInfo?[.message] ?? "\(error.code)"
                throw Failure(description: "PostgreSQL at \(configuration) refused the connection (\(state)): \(message)")
            } catch let error as NIOSSLError {
                throw Failure(description: "TLS with PostgreSQL at \(configuration) failed: \(error)")
            } catch let error as PSQLError where error.code == .sslUnsupported {
                throw Failure(description: "PostgreSQL at \(configuration) does not offer TLS, but sslmode=require: \(error.code)")
            } catch {
                let cause = (error as? PSQLError).map { "\($0.code)" + ($0.underlying.map { ": \($0)" } ?? "") } ?? "\(error)"
                guard clock.now < deadline else {
                    throw Failure(description: "PostgreSQL at \(configuration) did not answer within \(patience): \(cause)")
                }
                if clock.now >= nextNotice {
                    logger.warning("waiting for PostgreSQL", metadata: ["database": "\(configuration)", "cause": "\(cause)"])
                    nextNotice = clock.now + .seconds(5)
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    static func connectionConfiguration(_ configuration: DatabaseConfiguration) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch configuration.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var result = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
            database: configuration.database, tls: tls)
        result.options.connectTimeout = .seconds(3)
        return result
    }
}
