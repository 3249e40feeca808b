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

    public func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let metadata = event.metadata { merged.merge(metadata) { $1 } }
        var line = "{\"time\":\"\(Self.timestamp(Date()))\",\"level\":\"\(event.level.rawValue)\",\"label\":"
        Self.appendString(self.label, to: &line)
        line += ",\"message\":"
        Self.appendString("\(event.message)", to: &line)
        line += ",\"source\":"
        Self.appendString(event.source, to: &line)
        if !merged.isEmpty {
            line += ",\"metadata\":"
            Self.append(.dictionary(merged), to: &line)
        }
        line += "}\n"
        self.write(Array(line.utf8))
    }

    static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text): Self.appendString(text, to: &line)
        case .stringConvertible(let convertible): Self.appendString(convertible.description, to: &line)
        case .array(let items):
            line += "["
            for (index, item) in items.enumerated() {
                if index > 0 { line += "," }
                Self.append(item, to: &line)
            }
            line += "]"
        case .dictionary(let members):
            line += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                Self.appendString(key, to: &line)
                line += ":"
                Self.append(members[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: line += String(format: "\\u%04x", scalar.value)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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
