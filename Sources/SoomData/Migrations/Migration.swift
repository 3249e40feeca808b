import Foundation
import SoomCrypto

/// One schema change: a numbered plain-SQL file from `sql/` (`0001_identity.sql`).
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// SHA-256 of the file's bytes, hex: an applied migration must never change.
    public let checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256Digest.hash(Array(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The migrations compiled into this build from the `sql/` folder, in order. The binary needs
    /// no files at run time. A new file in `sql/` must be added here too (a test checks that
    /// this list and the folder agree, byte for byte).
    public static func bundled() throws -> [Migration] {
        let files: [(name: String, bytes: [UInt8])] = [
            ("0001_identity.sql", PackageResources._001_identity_sql),
            ("0002_cards.sql", PackageResources._002_cards_sql),
            ("0003_tags.sql", PackageResources._003_tags_sql),
            ("0004_challenges.sql", PackageResources._004_challenges_sql),
            ("0005_people.sql", PackageResources._005_people_sql),
            ("0006_safety.sql", PackageResources._006_safety_sql),
            ("0007_moderation.sql", PackageResources._007_moderation_sql),
            ("0008_tag_search.sql", PackageResources._008_tag_search_sql),
            ("0009_session_notifications.sql", PackageResources._009_session_notifications_sql),
            ("0010_location_cells.sql", PackageResources._010_location_cells_sql),
            ("0011_retention_and_photos.sql", PackageResources._011_retention_and_photos_sql),
            ("0012_reporter_age.sql", PackageResources._012_reporter_age_sql),
            ("0013_following_inbox.sql", PackageResources._013_following_inbox_sql),
            ("0014_viewer_marks_notifications.sql", PackageResources._014_viewer_marks_notifications_sql),
            ("0015_follows_notifications.sql", PackageResources._015_follows_notifications_sql),
            ("0016_popular_candidates.sql", PackageResources._016_popular_candidates_sql),
            ("0017_tag_feed_estimate.sql", PackageResources._017_tag_feed_estimate_sql),
            ("0018_tag_authors_and_quiet_notifications.sql", PackageResources._018_tag_authors_and_quiet_notifications_sql),
            ("0019_upload_quota.sql", PackageResources._019_upload_quota_sql),
            ("0020_report_rings.sql", PackageResources._020_report_rings_sql),
            ("0021_operator_switches.sql", PackageResources._021_operator_switches_sql),
            ("0022_views_and_visits.sql", PackageResources._022_views_and_visits_sql),
            ("0023_my_comment_cards.sql", PackageResources._023_my_comment_cards_sql),
            ("0024_polls.sql", PackageResources._024_polls_sql),
            ("0025_operator_cards.sql", PackageResources._025_operator_cards_sql),
            ("0026_reaching_people.sql", PackageResources._026_reaching_people_sql),
            ("0027_push.sql", PackageResources._027_push_sql),
        ]
        return try files.map { file in
            guard let version = Int(file.name.prefix(while: \.isNumber)) else { throw MigrationError.badFileName(file.name) }
            return Migration(version: version, name: file.name, sql: String(decoding: file.bytes, as: UTF8.self))
        }
    }

    /// Reads `NNNN_name.sql` files from a directory, ordered by number.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        let migrations = try files.map { file -> Migration in
            guard let version = Int(file.prefix(while: \.isNumber)) else { throw MigrationError.badFileName(file) }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            return Migration(version: version, name: file, sql: sql)
        }.sorted { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw MigrationError.duplicateVersion(previous.name, next.name)
        }
        return migrations
    }
}

/// Why the schema cannot be brought up to date. The server refuses to start on any of these.
public enum MigrationError: Error, CustomStringConvertible, Sendable {
    case badFileName(String)
    case duplicateVersion(String, String)
    /// A migration already applied to this database differs from the file of the same number.
    case changedAfterApplying(name: String, applied: String, file: String)
    case failed(name: String, reason: String)

    public var description: String {
        switch self {
        case .badFileName(let name):
            "Migration file '\(name)' must be named NNNN_description.sql."
        case .duplicateVersion(let first, let second):
            "Migrations '\(first)' and '\(second)' have the same number."
        case .changedAfterApplying(let name, let applied, let file):
            "Migration '\(name)' was changed after it was applied to this database (applied checksum \(applied.prefix(12)), "
                + "file checksum \(file.prefix(12))). Applied migrations must never change: restore the file and add a new migration instead."
        case .failed(let name, let reason):
            "Migration '\(name)' failed and was rolled back: \(reason)"
        }
    }
}
