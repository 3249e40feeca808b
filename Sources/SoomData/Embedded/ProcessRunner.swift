import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command to completion and captures its output (for the PostgreSQL tools).
///
/// Uses `posix_spawn` and `waitpid` directly rather than Foundation's `Process`: `pg_ctl start`
/// leaves a daemon behind, and `Process` only reports an exit once every descendant has closed
/// the descriptors it inherited. Each command also gets a session of its own, so the terminal's
/// Ctrl-C reaches Soom (which then stops PostgreSQL in order) and not PostgreSQL directly.
struct ProcessRunner: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        let output: String
        var description: String { "\(self.command) exited with \(self.status): \(self.output.trimmingCharacters(in: .whitespacesAndNewlines))" }
    }

    /// Runs `executable` with `arguments`, as `user` via `runuser` when given.
    /// - Throws: `Failure` with the command's combined output when it exits non-zero.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], asUser user: String? = nil) async throws -> String {
        // Blocking waits belong off the cooperative pool.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.runBlocking(executable, arguments, asUser: user) })
            }
        }
    }

    /// `run`, blocking the calling thread (for exit handlers, where nothing async can run).
    @discardableResult
    static func runBlocking(_ executable: String, _ arguments: [String], asUser user: String? = nil) throws -> String {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--", executable] } ?? [executable]
        let command = URL(fileURLWithPath: executable).lastPathComponent
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("soom-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        let status = try Self.spawnAndWait(argv + arguments, outputPath: outputPath)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(command: command, status: status, output: output) }
        return output
    }

    /// Starts `argv` in a session of its own, its output discarded, and does not wait for it: it
    /// outlives this process, and a signal to this process's group does not reach it.
    static func spawnDetached(_ argv: [String]) throws {
        _ = try Self.spawn(argv, outputPath: "/dev/null")
    }

    private static func spawnAndWait(_ argv: [String], outputPath: String) throws -> Int32 {
        let pid = try Self.spawn(argv, outputPath: outputPath)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(command: argv[0], status: -1, output: "waitpid failed: errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let terminatingSignal = status & 0x7f
        return terminatingSignal == 0 ? (status >> 8) & 0xff : 128 + terminatingSignal
    }

    private static func spawn(_ argv: [String], outputPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc, _GNU_SOURCE only, so not imported): a new session for the child.
        posix_spawnattr_setflags(&attributes, 0x80)

        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard spawned == 0 else {
            throw Failure(command: argv[0], status: -1, output: "cannot start: \(String(cString: strerror(spawned)))")
        }
        return pid
    }
}
