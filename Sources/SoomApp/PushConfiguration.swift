import Foundation
import SoomDomain
import SoomPush

/// How the server reaches devices, from the environment:
///
/// - `SOOM_VAPID_PRIVATE_KEY`: the VAPID key (a P-256 private key in PEM, or the path of a PEM
///   file). Unset: the first instance makes one and stores it in the database for all.
/// - `SOOM_VAPID_SUBJECT`: the operator's contact the push services see (`mailto:` or `https:`).
/// - `SOOM_PUSH_ALLOWED_HOSTS`: the Web Push hosts the server may call, comma-separated
///   (`host`, `host:port`, `*.suffix`); default: the browsers' public push services.
/// - `SOOM_PUSH_CA_FILE`: more trusted roots (PEM) for push services' certificates.
/// - `SOOM_FCM_CREDENTIALS`: a Firebase service account's JSON file; unset, FCM is not offered.
///   `SOOM_FCM_TOKEN_URL` and `SOOM_FCM_ENDPOINT` replace its token endpoint and FCM's address
///   (a stand-in, in tests).
/// - `SOOM_APNS_KEY` (the `.p8` file), `SOOM_APNS_KEY_ID`, `SOOM_APNS_TEAM_ID`, `SOOM_APNS_TOPIC`
///   (the app's bundle id) and `SOOM_APNS_ENDPOINT` (default production; the sandbox is
///   `https://api.sandbox.push.apple.com`): all four of the first set, or APNs is not offered.
public struct PushConfiguration: Sendable {
    public var vapidPrivateKeyPEM: String?
    public var vapidSubject: String
    public var allowedHosts: [String]
    public var caFile: String?
    public var fcm: FCMCredentials?
    public var fcmTokenURL: String?
    public var fcmEndpoint = "https://fcm.googleapis.com"
    public var apns: APNsCredentials?
    /// How long the delivery service rests when the queue is empty.
    public var deliveryInterval: Duration = .milliseconds(500)
    /// How long a send may take before it is retried.
    public var sendTimeout: Duration = .seconds(10)
    /// How long a claimed delivery is kept from other instances (one that died mid-send).
    public var lease: Duration = .seconds(60)
    /// The first retry's wait in seconds; each later one doubles.
    public var retryBase: Double = 15

    public init(
        vapidPrivateKeyPEM: String? = nil, vapidSubject: String = "mailto:push@soom.invalid",
        allowedHosts: [String] = PushEndpointPolicy.defaultHosts, caFile: String? = nil
    ) {
        self.vapidPrivateKeyPEM = vapidPrivateKeyPEM
        self.vapidSubject = vapidSubject
        self.allowedHosts = allowedHosts
        self.caFile = caFile
    }

    /// The kinds this configuration can send.
    public var offered: Set<PushKind> {
        var kinds: Set<PushKind> = [.webPush]
        if self.fcm != nil { kinds.insert(.fcm) }
        if self.apns != nil { kinds.insert(.apns) }
        return kinds
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the settings above.
    /// - Throws: `Invalid`, naming the setting, for a key that is not a P-256 PEM, a subject that
    ///   is not `mailto:` or `https:`, or a CA file that cannot be read.
    public init(environment: [String: String]) throws {
        self.init()
        if let value = environment["SOOM_VAPID_PRIVATE_KEY"]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            // PEM, or a file's path; an error never repeats the value (it may be the key).
            let pem = value.contains("-----BEGIN") ? value : try Self.read(value, setting: "SOOM_VAPID_PRIVATE_KEY", quoting: false)
            guard VAPIDKeeper.isPrivateKey(pem: pem) else {
                throw Invalid(description: "SOOM_VAPID_PRIVATE_KEY is not a P-256 private key in PEM")
            }
            self.vapidPrivateKeyPEM = pem
        }
        if let subject = environment["SOOM_VAPID_SUBJECT"], !subject.isEmpty {
            guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
                throw Invalid(description: "SOOM_VAPID_SUBJECT must be a mailto: or https: URL")
            }
            self.vapidSubject = subject
        }
        if let hosts = environment["SOOM_PUSH_ALLOWED_HOSTS"], !hosts.isEmpty {
            self.allowedHosts = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let file = environment["SOOM_PUSH_CA_FILE"], !file.isEmpty {
            guard try Self.read(file, setting: "SOOM_PUSH_CA_FILE").contains("-----BEGIN CERTIFICATE-----") else {
                throw Invalid(description: "SOOM_PUSH_CA_FILE holds no PEM certificate")
            }
            self.caFile = file
        }
        if let file = environment["SOOM_FCM_CREDENTIALS"], !file.isEmpty {
            self.fcm = try Self.fcmCredentials(json: try Self.read(file, setting: "SOOM_FCM_CREDENTIALS"))
        }
        if let url = environment["SOOM_FCM_TOKEN_URL"], !url.isEmpty { self.fcmTokenURL = url }
        if let url = environment["SOOM_FCM_ENDPOINT"], !url.isEmpty { self.fcmEndpoint = url }
        let apns = ["SOOM_APNS_KEY", "SOOM_APNS_KEY_ID", "SOOM_APNS_TEAM_ID", "SOOM_APNS_TOPIC"].map {
            environment[$0].flatMap { $0.isEmpty ? nil : $0 }
        }
        if apns.contains(where: { $0 != nil }) {
            guard let file = apns[0], let keyID = apns[1], let teamID = apns[2], let topic = apns[3] else {
                throw Invalid(description: "APNs needs all of SOOM_APNS_KEY, SOOM_APNS_KEY_ID, SOOM_APNS_TEAM_ID and SOOM_APNS_TOPIC")
            }
            let credentials = APNsCredentials(
                keyPEM: try Self.read(file, setting: "SOOM_APNS_KEY"), keyID: keyID, teamID: teamID, topic: topic,
                endpoint: environment["SOOM_APNS_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://api.push.apple.com")
            guard credentials.isValid else { throw Invalid(description: "SOOM_APNS_KEY is not a P-256 private key in PEM (a .p8 file)") }
            self.apns = credentials
        }
    }

    /// A service account's JSON, checked: its key must be an RSA private key in PEM.
    public static func fcmCredentials(json: String) throws -> FCMCredentials {
        guard let credentials = try? JSONDecoder().decode(FCMCredentials.self, from: Data(json.utf8)),
            FCMAccessToken.isPrivateKey(pem: credentials.privateKey), credentials.tokenURI.hasPrefix("https://")
        else { throw Invalid(description: "SOOM_FCM_CREDENTIALS is not a service account's JSON with an RSA private key and an https token_uri") }
        return credentials
    }

    /// A file's text; the error names the path only when `quoting` (a setting that may hold a key itself never is).
    private static func read(_ path: String, setting: String, quoting: Bool = true) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Invalid(description: quoting ? "\(setting): cannot read \(path)" : "\(setting) is neither a PEM key nor a readable file")
        }
        return text
    }
}
