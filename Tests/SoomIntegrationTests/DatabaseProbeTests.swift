import Foundation
import Logging
import SoomData
import Testing

/// The start-up probe: clear and fast about what cannot get better, patient with what can.
@Suite("Reaching PostgreSQL at start-up")
struct DatabaseProbeTests {
    let logger = Logger(label: "soom-test")

    @Test("a reachable database passes; a wrong password or database fails at once with PostgreSQL's message, never the password")
    func refusals() async throws {
        let server = try await TestPostgres.shared.server()
        try await DatabaseProbe.waitUntilReachable(server.admin, logger: self.logger)

        var wrongPassword = server.admin
        wrongPassword.password = "not-the-password-\(UUID())"
        let started = ContinuousClock.now
        let passwordFailure = await #expect(throws: DatabaseProbe.Failure.self) {
            try await DatabaseProbe.waitUntilReachable(wrongPassword, logger: self.logger)
        }
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(passwordFailure?.description.contains("password authentication failed") == true, "\(String(describing: passwordFailure))")
        #expect(passwordFailure?.description.contains(wrongPassword.password!) == false)

        var wrongDatabase = server.admin
        wrongDatabase.database = "no_such_database"
        let databaseFailure = await #expect(throws: DatabaseProbe.Failure.self) {
            try await DatabaseProbe.waitUntilReachable(wrongDatabase, logger: self.logger)
        }
        #expect(databaseFailure?.description.contains("3D000") == true, "\(String(describing: databaseFailure))")
    }

    @Test("nobody listening: it waits, then says so after its patience")
    func unreachable() async throws {
        let nobody = DatabaseConfiguration(host: "127.0.0.1", port: 1, username: "soom", password: "x", database: "soom")
        let started = ContinuousClock.now
        let failure = await #expect(throws: DatabaseProbe.Failure.self) {
            try await DatabaseProbe.waitUntilReachable(nobody, logger: self.logger, patience: .seconds(2))
        }
        #expect(started.duration(to: .now) >= .seconds(2))
        #expect(failure?.description.contains("did not answer within") == true, "\(String(describing: failure))")
    }
}
