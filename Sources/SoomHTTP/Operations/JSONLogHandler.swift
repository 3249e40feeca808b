import Foundation
import Logging
import Synchronization

/// Structured logs: one JSON object per line on standard error, for log collectors.
///
/// `{"time":"2026-11-23T03:18:16.123Z","level":"info","label":"soom","message":"request",
/// "source":"SoomHTTP","metadata":{"hb.request.id":"…","http.route":"/v1/cards/{id}",…}}`.
/// `soom serve` uses it when standard error is not a terminal (a container, a service manager)
/// and the human-readable `StreamLogHandler` otherwise. What is logged is the callers' business:
/// nothing in the code base logs a token, signature, key, fingerprint or client address.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    /// A handler writing to standard error.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider, write: StandardError.write)
    }

    /// A handler writing each line (newline included) through `write`.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    /// Writes the line with `JSONWriter` (bytes in one buffer, no `String` concatenation or
    /// Foundation formatters): at one line per request this runs thousands of times a second.
    public func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { $1 } }
        if let metadata = event.metadata, !metadata.isEmpty { merged.merge(metadata) { $1 } }
        var line = JSONWriter(capacity: 320)
        line.beginObject()
        line.key("time")
        line.timestamp(Date())
        line.key("level")
        line.string(event.level.rawValue)
        line.key("label")
        line.string(self.label)
        line.key("message")
        line.string(event.message.description)
        line.key("source")
        line.string(event.source)
        if !merged.isEmpty {
            line.key("metadata")
            Self.write(.dictionary(merged), to: &line)
        }
        line.endObject()
        line.newline()
        self.write(line.bytes)
    }

    static func write(_ value: Logger.Metadata.Value, to line: inout JSONWriter) {
        switch value {
        case .string(let text): line.string(text)
        case .stringConvertible(let convertible): line.string(convertible.description)
        case .array(let items):
            line.beginArray()
            for item in items { Self.write(item, to: &line) }
            line.endArray()
        case .dictionary(let members):
            line.beginObject()
            for key in members.keys.sorted() {
                line.key(key)
                Self.write(members[key]!, to: &line)
            }
            line.endObject()
        }
    }
}

/// Whole lines to standard error, one writer at a time so lines never interleave.
enum StandardError {
    private static let lock = Mutex(())

    @Sendable static func write(_ bytes: [UInt8]) {
        Self.lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}
