import Foundation
import HummingbirdTesting
import SoomDomain
import Testing

/// Mutated photos uploaded to the real server: flipped, cut, repeated, spliced and padded bytes of every
/// fixture and of issue 43's refused files.
///
/// The invariants: never a 5xx, a dropped connection or a hang; every refusal
/// is the contract's `413`, `415` or `422` and stores nothing; what is stored is what scrubbing it again
/// gives (a fixed point). `SOOM_IMAGE_FUZZ_UPLOADS` sets how many uploads (default 240), `SOOM_FUZZ_SEED`
/// replays a run.
@Suite("Hostile input: mutated photos")
struct ImageFuzzTests {
    static let fixtures: [(bytes: [UInt8], type: String)] = [
        ("jpeg-baseline.jpg", "image/jpeg"), ("jpeg-progressive.jpg", "image/jpeg"), ("jpeg-icc.jpg", "image/jpeg"),
        ("jpeg-trailer.jpg", "image/jpeg"),
        ("png-metadata.png", "image/png"), ("webp-lossy.webp", "image/webp"), ("webp-lossless.webp", "image/webp"),
        ("webp-exif-prefix.webp", "image/webp"), ("webp-animated.webp", "image/webp"),
    ].map { (try! PhotoFixtures.bytes($0.0), $0.1) }

    @Test("mutated photos: never a 5xx or a hang, a refusal stores nothing, what is stored scrubs to itself")
    func mutatedUploads() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["SOOM_IMAGE_FUZZ_UPLOADS"].flatMap(Int.init) ?? 240
        let seed = environment["SOOM_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let bases = Self.fixtures + (try ImageAbuseTests.refusedFiles()).map { ($0.bytes, $0.type) }
        try await withTestApp(backgroundJobs: false) { client, database in
            let token = try await database.makeAccounts(1)[0]
            var random = SeededGenerator(seed: seed)
            var stored = 0
            var statuses: [Int: Int] = [:]
            for number in 0..<count {
                let base = bases[Int.random(in: 0..<bases.count, using: &random)]
                let other = bases[Int.random(in: 0..<bases.count, using: &random)].bytes
                let bytes = Self.mutate(base.bytes, other: other, using: &random)
                let started = ContinuousClock.now
                let response = try await client.upload(bytes, type: base.type, token: token)
                let elapsed = ContinuousClock.now - started
                let status = Int(response.status.code)
                statuses[status, default: 0] += 1
                let context =
                    "upload \(number) of seed \(seed) (\(base.type), \(bytes.count) bytes) → \(status) \(String(buffer: response.body).prefix(200))"
                try #require([201, 413, 415, 422].contains(status), "\(context)")
                // A hang, not a slow moment: the machine runs every suite at once.
                #expect(elapsed < .seconds(30), "\(context): \(elapsed)")
                if status == 201 {
                    stored += 1
                    let url = try #require(try response.object["url"] as? String)
                    let served = Array(try await client.send(.get, url).body.readableBytesView)
                    let format = try #require(ImageFormat(contentType: base.type))
                    #expect(try PhotoScrubber.scrub(served, format: format).bytes == served, "\(context)")
                } else {
                    try #require(response.errorCode != nil, "\(context)")
                }
                try #require(try await database.scalar("SELECT count(*)::int FROM images") == stored, "\(context)")
            }
            print("image fuzz: \(count) uploads, seed \(seed), statuses \(statuses.sorted { $0.key < $1.key })")
            #expect(statuses[201, default: 0] > 0 && statuses[422, default: 0] > 0, "\(statuses)")
        }
    }

    /// One of: a few bytes changed, a cut, a range repeated, a splice with another file, random bytes inserted.
    static func mutate(_ bytes: [UInt8], other: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            return bytes
        case 1:
            for _ in 0...Int.random(in: 0...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 2:
            bytes.removeSubrange(at...)
        case 3:
            let end = min(bytes.count, at + Int.random(in: 1...400, using: &random))
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        case 4:
            bytes = Array(bytes[..<at]) + other[Int.random(in: 0..<other.count, using: &random)...]
        default:
            bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
        }
        return bytes
    }
}
