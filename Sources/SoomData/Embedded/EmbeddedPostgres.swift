import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL cluster that Soom runs itself when no `DATABASE_URL` is given.
///
/// The cluster lives in `dataDirectory` (created with `initdb` on first use), listens only on
/// 127.0.0.1 on a free port chosen at each start, has no Unix socket, and requires a password
/// generated at `initdb` time and kept next to it (mode 0600). When started as root, every
/// PostgreSQL tool runs as the `postgres` user, because PostgreSQL refuses to run as root.
public struct EmbeddedPostgres: Sendable {
    /// Extra `postgresql.conf` lines (tests turn durability off for speed).
    public var settings: [String: String]
    public let dataDirectory: URL
    let binaries: URL
    let databaseName: String
    let logger: Logger

    static let username = "soom"

    /// - Parameter dataDirectory: the cluster's folder; its parent holds the credentials file.
    /// - Throws: `EmbeddedPostgresError.binariesNotFound` naming the package to install.
    public init(dataDirectory: URL, databaseName: String = "soom", settings: [String: String] = [:], logger: Logger) throws {
        guard let binaries = Self.locateBinaries() else { throw EmbeddedPostgresError.binariesNotFound }
        self.dataDirectory = dataDirectory.standardizedFileURL
        self.binaries = binaries
        self.databaseName = databaseName
        self.settings = settings
        self.logger = logger
    }

    var credentialsFile: URL { self.dataDirectory.deletingLastPathComponent().appendingPathComponent("postgres-credentials") }
    var logFile: URL { self.dataDirectory.appendingPathComponent("server.log") }
    /// The user the PostgreSQL processes run as: `postgres` when we are root, ourselves otherwise.
    var serviceUser: String? { geteuid() == 0 ? "postgres" : nil }

    /// Creates the cluster if needed, starts it and makes sure the application database exists.
    /// - Parameter port: the port to listen on; a free one when nil.
    /// - Returns: how to connect to it.
    public func start(port requestedPort: Int? = nil) async throws -> DatabaseConfiguration {
        let password = try await self.initialiseIfNeeded()
        if (try? await self.pgctl(["status", "-D", self.dataDirectory.path])) != nil {
            // A server left running by an earlier process that did not stop it: restart on a fresh port.
            self.logger.notice("stopping a PostgreSQL left running in \(self.dataDirectory.path)")
            try await self.stop()
        }
        let port = try requestedPort ?? Self.freePort()
        self.logger.info("starting embedded PostgreSQL", metadata: ["dataDirectory": "\(self.dataDirectory.path)", "port": "\(port)"])
        do {
            try await self.pgctl(["start", "-D", self.dataDirectory.path, "-l", self.logFile.path, "-w", "-t", "60", "-o", "-p \(port)"])
        } catch {
            let log = (try? String(contentsOf: self.logFile, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? ""
            throw EmbeddedPostgresError.startFailed("\(error)\n\(log)")
        }
        var configuration = DatabaseConfiguration(host: "127.0.0.1", port: port, username: Self.username, password: password, database: "postgres")
        try await self.createDatabaseIfNeeded(configuration)
        configuration.database = self.databaseName
        return configuration
    }

    /// How to connect to the cluster when a server (`soom serve`) runs it now, nil otherwise: a
    /// command (`soom admin`) then works beside that server instead of restarting its database.
    public func running() async -> DatabaseConfiguration? {
        guard (try? await self.pgctl(["status", "-D", self.dataDirectory.path])) != nil,
            let pid = try? String(contentsOf: self.dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let portLine = pid.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(3).first, let port = Int(portLine),
            let password = try? String(contentsOf: self.credentialsFile, encoding: .utf8)
        else { return nil }
        return DatabaseConfiguration(
            host: "127.0.0.1", port: port, username: Self.username, password: password.trimmingCharacters(in: .whitespacesAndNewlines),
            database: self.databaseName)
    }

    /// Stops the cluster (fast shutdown: open sessions are ended, data is safe).
    public func stop() async throws {
        try await self.pgctl(["stop", "-D", self.dataDirectory.path, "-m", "fast", "-w", "-t", "60"])
        self.logger.info("stopped embedded PostgreSQL")
    }

    /// Stops the cluster at once and waits, blocking the thread: for exit handlers of throwaway clusters.
    public func stopImmediately() {
        _ = try? ProcessRunner.runBlocking(
            self.binaries.appendingPathComponent("pg_ctl").path, ["stop", "-D", self.dataDirectory.path, "-m", "immediate", "-w"],
            asUser: self.serviceUser)
    }

    /// Starts a watchdog: a small shell process, in a session of its own, that stops this cluster
    /// (and removes `folder`) once process `pid` is gone — also when that process was killed by a
    /// signal (Ctrl-C, SIGTERM, SIGKILL) and no exit handler ran. For throwaway clusters (tests).
    public func stopWhenGone(pid: pid_t = getpid(), removing folder: URL?) throws {
        let pgctl = self.binaries.appendingPathComponent("pg_ctl").path
        let stop = (self.serviceUser.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [pgctl]
        let script = """
            while kill -0 "$1" 2>/dev/null; do sleep 1; done
            if [ -f "$2/postmaster.pid" ]; then shift 3; "$@" stop -D "$data" -m immediate -w; fi
            [ -n "$folder" ] && rm -rf "$folder"
            """
        try ProcessRunner.spawnDetached(
            [
                "/usr/bin/env", "data=\(self.dataDirectory.path)", "folder=\(folder?.path ?? "")", "/bin/sh", "-c", script, "soom-watchdog", "\(pid)",
                self.dataDirectory.path, "-",
            ] + stop)
    }

    /// Runs `initdb` once; returns the cluster's password.
    private func initialiseIfNeeded() async throws -> String {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: self.dataDirectory.appendingPathComponent("PG_VERSION").path) {
            guard let password = try? String(contentsOf: self.credentialsFile, encoding: .utf8) else {
                throw EmbeddedPostgresError.missingCredentials(self.credentialsFile.path)
            }
            return password.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        self.logger.info("creating embedded PostgreSQL cluster", metadata: ["dataDirectory": "\(self.dataDirectory.path)"])
        let parent = self.dataDirectory.deletingLastPathComponent()
        try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        try? fileManager.removeItem(at: self.dataDirectory)
        try fileManager.createDirectory(at: self.dataDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let password = (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let passwordFile = parent.appendingPathComponent("postgres-initdb-password")
        try SecretFile.write(password, to: passwordFile)
        try self.handOver(self.dataDirectory)
        try self.handOver(passwordFile)
        do {
            try await ProcessRunner.run(
                self.binaries.appendingPathComponent("initdb").path,
                [
                    "-D", self.dataDirectory.path, "-U", Self.username, "--pwfile", passwordFile.path, "-A", "scram-sha-256", "-E", "UTF8",
                    "--no-locale", "--no-instructions",
                ],
                asUser: self.serviceUser)
        } catch {
            try? fileManager.removeItem(at: passwordFile)
            try? fileManager.removeItem(at: self.dataDirectory)
            throw EmbeddedPostgresError.initFailed("\(error)")
        }
        try fileManager.removeItem(at: passwordFile)
        var configuration = "\n# Soom embedded cluster: loopback TCP only, no Unix socket.\n"
        configuration += "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\n"
        for (key, value) in self.settings.sorted(by: { $0.key < $1.key }) { configuration += "\(key) = \(value)\n" }
        let configFile = self.dataDirectory.appendingPathComponent("postgresql.conf")
        let handle = try FileHandle(forWritingTo: configFile)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(configuration.utf8))
        try handle.close()
        try SecretFile.write(password, to: self.credentialsFile)
        return password
    }

    private func createDatabaseIfNeeded(_ configuration: DatabaseConfiguration) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
                database: "postgres", tls: .disable),
            id: 1, logger: self.logger)
        do {
            let existing = try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(self.databaseName)", logger: self.logger)
                .collect()
            if existing.isEmpty {
                try await connection.query(UnpreparedSQL.createDatabase(self.databaseName), logger: self.logger)
            }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    @discardableResult
    private func pgctl(_ arguments: [String]) async throws -> String {
        try await ProcessRunner.run(self.binaries.appendingPathComponent("pg_ctl").path, arguments, asUser: self.serviceUser)
    }

    /// Gives a path to the service user when we run as root.
    private func handOver(_ url: URL) throws {
        guard let user = self.serviceUser else { return }
        guard let entry = getpwnam(user) else { throw EmbeddedPostgresError.noServiceUser }
        guard chown(url.path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
            throw EmbeddedPostgresError.initFailed("cannot hand \(url.path) to the \(user) user (errno \(errno))")
        }
    }

    /// A free TCP port on 127.0.0.1, asked of the kernel.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw EmbeddedPostgresError.startFailed("cannot open a socket to find a free port") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw EmbeddedPostgresError.startFailed("cannot find a free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `pg_ctl` and `initdb` on PATH, or in the newest `/usr/lib/postgresql/*/bin` (Debian keeps them off PATH).
    static func locateBinaries() -> URL? {
        let fileManager = FileManager.default
        let hasTools = { (directory: URL) in
            ["initdb", "pg_ctl", "postgres"].allSatisfy { fileManager.isExecutableFile(atPath: directory.appendingPathComponent($0).path) }
        }
        let pathEntries = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        if let onPath = pathEntries.first(where: hasTools) {
            return onPath
        }
        let debianRoot = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? fileManager.contentsOfDirectory(atPath: debianRoot.path)) ?? []
        return versions.compactMap(Int.init).sorted(by: >).map { debianRoot.appendingPathComponent("\($0)/bin") }.first(where: hasTools)
    }
}

/// Why the embedded database could not run; each message says what to do.
public enum EmbeddedPostgresError: Error, CustomStringConvertible, Sendable {
    case binariesNotFound
    case noServiceUser
    case missingCredentials(String)
    case initFailed(String)
    case startFailed(String)

    public var description: String {
        switch self {
        case .binariesNotFound:
            "PostgreSQL server programs (initdb, pg_ctl, postgres) were not found on PATH or in /usr/lib/postgresql/*/bin. "
                + "Install them (Debian/Ubuntu: apt-get install postgresql), or set DATABASE_URL to use an existing server."
        case .noServiceUser:
            "Running as root, but there is no 'postgres' user to run PostgreSQL as (PostgreSQL refuses root). Install the postgresql package, which creates it."
        case .missingCredentials(let path):
            "The embedded cluster exists but its credentials file \(path) is missing. Remove the .soom/postgres folder to start afresh."
        case .initFailed(let reason):
            "Creating the embedded PostgreSQL cluster failed: \(reason)"
        case .startFailed(let reason):
            "Starting the embedded PostgreSQL failed: \(reason)"
        }
    }
}
