/// Builds a SubjectPublicKeyInfo around a PKCS#1 `RSAPublicKey`, so both PEM forms can go
/// through the same (non-deprecated) `d2i_PUBKEY` path and end up with one canonical encoding.
enum RSASubjectPublicKeyInfo {
    /// DER of AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL }.
    private static let rsaEncryptionAlgorithm: [UInt8] = [
        0x30, 0x0D,
        0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01,
        0x05, 0x00,
    ]

    /// SEQUENCE { AlgorithmIdentifier, BIT STRING { 0 unused bits ‖ pkcs1DER } }.
    /// The content is not inspected here; OpenSSL validates it when parsing the result.
    static func wrapping(pkcs1DER: [UInt8]) -> [UInt8] {
        let bitString = [0x03] + derLength(pkcs1DER.count + 1) + [0x00] + pkcs1DER
        let content = rsaEncryptionAlgorithm + bitString
        return [0x30] + derLength(content.count) + content
    }

    /// A DER definite length: short form below 128, otherwise minimal big-endian long form.
    static func derLength(_ length: Int) -> [UInt8] {
        precondition(length >= 0)
        if length < 0x80 { return [UInt8(length)] }
        var octets: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            octets.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}
