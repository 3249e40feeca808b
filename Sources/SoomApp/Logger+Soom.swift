import Logging

extension Logger {
    /// The application's logger (label `soom`) at `level`.
    static func soom(level: Logger.Level) -> Logger {
        var logger = Logger(label: "soom")
        logger.logLevel = level
        return logger
    }

    /// This logger, but never below `level` (the database driver's: see `buildApplication`).
    func notBelow(_ level: Logger.Level) -> Logger {
        var logger = self
        logger.logLevel = max(self.logLevel, level)
        return logger
    }
}
