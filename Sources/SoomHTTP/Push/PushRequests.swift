import Foundation
import SoomDomain

/// `POST /v1/me/push-subscriptions`: `{"kind": "webpush", "endpoint", "keys": {"p256dh", "auth"}}`,
/// `{"kind": "fcm", "token"}` or `{"kind": "apns", "token"}`. A missing member or a wrong type is
/// `400 invalid_request`; an unknown kind, or keys that are not base64url, `422` on the field.
struct PushSubscriptionRequest: Decodable {
    let address: PushAddress

    enum CodingKeys: String, CodingKey { case kind, endpoint, keys, token }

    struct Keys: Decodable {
        let p256dh: String
        let auth: String
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch PushKind(rawValue: kind) {
        case .webPush:
            let endpoint = try container.decode(String.self, forKey: .endpoint)
            let keys = try container.decode(Keys.self, forKey: .keys)
            guard let p256dh = Base64URL.decode(keys.p256dh.trimmingPadding) else {
                throw SoomError.validationFailed(field: "keys.p256dh", "p256dh must be base64url.")
            }
            guard let auth = Base64URL.decode(keys.auth.trimmingPadding) else {
                throw SoomError.validationFailed(field: "keys.auth", "auth must be base64url.")
            }
            self.address = .webPush(endpoint: endpoint, p256dh: p256dh, auth: auth)
        case .fcm:
            self.address = .fcm(token: try container.decode(String.self, forKey: .token))
        case .apns:
            self.address = .apns(token: try container.decode(String.self, forKey: .token))
        case nil:
            throw SoomError.validationFailed(field: "kind", "kind must be webpush, fcm or apns.")
        }
    }
}

extension String {
    /// Browsers give keys in base64url, some with `=` padding; the padding is dropped.
    fileprivate var trimmingPadding: String {
        var text = self
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
