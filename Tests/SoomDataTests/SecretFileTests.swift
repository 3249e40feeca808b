import Foundation
import Testing

@testable import SoomData

@Suite("Files that hold passwords")
struct SecretFileTests {
    @Test("a secret file is created 0600 from the start, whatever the umask, and replaces a readable one")
    func mode() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soom-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("postgres-credentials")
        try "old".write(to: file, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)

        try SecretFile.write("s3cret", to: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == "s3cret")
    }
}
