import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files that hold a password: created readable and writable by their owner only (0600) from the
/// first byte, never written first and restricted afterwards (a window in which anyone on the
/// machine could read them).
enum SecretFile {
    /// Writes `text` to a new file at `url` with mode 0600, replacing any file there.
    static func write(_ text: String, to url: URL) throws {
        _ = unlink(url.path)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(descriptor) }
        // The mode given to open() is reduced by the umask; make sure it is exactly 0600.
        guard fchmod(descriptor, 0o600) == 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: Data(text.utf8))
    }
}
