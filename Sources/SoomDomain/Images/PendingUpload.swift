import Synchronization

/// An upload's bytes on their way from the request to `UploadPhoto`, taken exactly once.
///
/// A reactor's action lives until the request ends; holding the bytes in it by value would keep
/// the original upload in memory while its scrubbed copy is written. Taking them out lets the
/// original go as soon as it has been scrubbed, so one upload costs about two copies of the file.
public final class PendingUpload: Sendable {
    private let bytes: Mutex<[UInt8]>

    public init(_ bytes: consuming [UInt8]) {
        self.bytes = Mutex(bytes)
    }

    /// The bytes; empty when they were taken before.
    public func take() -> [UInt8] {
        self.bytes.withLock { bytes in
            let taken = bytes
            bytes = []
            return taken
        }
    }
}
