import ArgumentParser
import Foundation
import Logging
import SoomHTTP

/// How `soom` writes its logs: JSON lines for collectors, or text for people.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// JSON lines when standard error is not a terminal (a container, a service manager), text when it is.
    case auto
    case json
    case text

    /// Installs the log handler for the whole process (once, before anything logs).
    func bootstrap() {
        let json = self == .json || (self == .auto && isatty(STDERR_FILENO) == 0)
        LoggingSystem.bootstrap { label in
            json ? JSONLogHandler(label: label) as any LogHandler : StreamLogHandler.standardError(label: label)
        }
    }

    static var fromEnvironment: LogFormat {
        ProcessInfo.processInfo.environment["SOOM_LOG_FORMAT"].flatMap { LogFormat(rawValue: $0.lowercased()) } ?? .auto
    }
}
