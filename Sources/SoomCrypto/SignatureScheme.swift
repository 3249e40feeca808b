/// Signature schemes a device may use. Both hash the message with SHA-256.
public enum SignatureScheme: Sendable, Hashable, CaseIterable {
    /// RSASSA-PSS with SHA-256 and MGF1-SHA-256. On verification any salt length is accepted,
    /// because signers differ in their defaults (digest length, maximum, zero).
    case rsaPSSSHA256
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rsaPKCS1v15SHA256
}
