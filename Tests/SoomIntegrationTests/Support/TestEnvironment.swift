import Logging
import PostgresNIO
import SoomData
import SoomDomain

@testable import SoomHTTP

/// Dependencies for building the router without a database behind it (route-list checks).
enum TestEnvironment {
    static let database = Database(
        client: PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable)),
        logger: Logger(label: "soom-test"))
    static let identity = IdentityEnvironment(repository: PostgresIdentityRepository(database: database), crypto: OpenSSLIdentityCrypto())
}
