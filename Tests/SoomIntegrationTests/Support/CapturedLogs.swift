import Foundation
import Logging
import SoomHTTP
import Synchronization

/// Every log line of the test process, as the JSON lines `soom serve` writes, for tests that
/// check what is (and is not) logged. Installed on first use, before the app under test makes
/// its logger; warnings and errors are passed on to standard error as before.
enum CapturedLogs {
    private static let captured = Mutex<[String]>([])
    private static let installed: Void = {
        LoggingSystem.bootstrap { label in
            JSONLogHandler(label: label) { bytes in
                let line = String(decoding: bytes, as: UTF8.self)
                CapturedLogs.captured.withLock { $0.append(line) }
                if line.contains("\"level\":\"warning\"") || line.contains("\"level\":\"error\"") || line.contains("\"level\":\"critical\"") {
                    FileHandle.standardError.write(Data(bytes))
                }
            }
        }
    }()

    static func install() {
        _ = Self.installed
    }

    static var lines: [String] { Self.captured.withLock { $0 } }
}
