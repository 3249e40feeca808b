import Foundation
import Testing

extension TestDatabase {
    /// `pg_dump` of the test's database, as plain SQL: what an operator with the database sees.
    func dump() throws -> String {
        let configuration = self.configuration
        let candidates =
            ["/usr/bin/pg_dump"]
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
        let tool = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "pg_dump not found")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [
            "-h", configuration.host, "-p", String(configuration.port), "-U", configuration.username, "-d", configuration.database, "--no-owner",
        ]
        var environment = ProcessInfo.processInfo.environment
        if let password = configuration.password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pg_dump failed")
        return String(decoding: data, as: UTF8.self)
    }
}
