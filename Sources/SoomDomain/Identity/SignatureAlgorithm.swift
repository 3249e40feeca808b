/// The signature schemes a device may sign with (the contract's `algorithm` values).
public enum SignatureAlgorithm: String, Sendable, CaseIterable, Codable {
    /// RSASSA-PSS, SHA-256, MGF1-SHA-256, any salt length.
    case rsaPSSSHA256 = "rsa-pss-sha256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rsaPKCS1v15SHA256 = "rsa-pkcs1v15-sha256"
}

/// What a signature is for; part of the signed bytes so a login proof can never register,
/// transfer, issue a transfer code or withdraw.
public enum SignaturePurpose: String, Sendable {
    case register, login, transfer
    /// Issuing a transfer code: signed by the account's current key.
    case transferCode = "transfer-code"
    /// Withdrawing: signed by the account's current key.
    case withdraw

    /// The exact bytes a device signs: the UTF-8 string `soom:v1:<purpose>:<nonce>`.
    public func message(nonce: String) -> [UInt8] {
        Array("soom:v1:\(self.rawValue):\(nonce)".utf8)
    }
}
