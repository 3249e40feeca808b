import COpenSSL

/// An RSA public key of a device, parsed and validated once; immutable; safe to share across tasks.
///
/// Only plain `rsaEncryption` keys of 2048...4096 bits with public exponent 65537 are accepted.
/// Verification follows RFC 8017 strictly (a signature must be exactly as long as the modulus).
///
/// `@unchecked Sendable`: the class only wraps an `EVP_PKEY*` that is never mutated after `init`.
/// OpenSSL 3 allows one key to be used for verification from many threads at once as long as
/// each call has its own `EVP_MD_CTX`/`EVP_PKEY_CTX`, which `isValidSignature` creates per call.
public final class DevicePublicKey: @unchecked Sendable {
    /// The SubjectPublicKeyInfo DER encoding (same for a key given as SPKI or PKCS#1).
    public let subjectPublicKeyInfoDER: [UInt8]
    /// SHA-256 of `subjectPublicKeyInfoDER` (32 bytes). The same key in both PEM forms has the
    /// same fingerprint, and it matches `openssl pkey -pubin -outform DER | sha256sum`.
    public let fingerprint: [UInt8]
    /// Size of the RSA modulus in bits (2048...4096).
    public let bits: Int

    /// Owned; freed in `deinit`. Never mutated after `init`.
    private let pkey: OpaquePointer
    /// Modulus length in bytes: the only valid signature length.
    private let signatureByteCount: Int

    private static let acceptedBits = 2048...4096

    /// Accepts PEM `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) or
    /// `-----BEGIN RSA PUBLIC KEY-----` (PKCS#1 RSAPublicKey). Surrounding whitespace and CRLF line
    /// endings are fine; anything else (private keys, certificates, two blocks, extra text,
    /// non-canonical DER) is refused.
    public convenience init(pem: String) throws(PublicKeyError) {
        guard let block = PEMBlock(parsing: pem) else { throw .malformedPEM }
        switch block.label {
        case "PUBLIC KEY": try self.init(subjectPublicKeyInfoDER: block.der)
        case "RSA PUBLIC KEY": try self.init(subjectPublicKeyInfoDER: RSASubjectPublicKeyInfo.wrapping(pkcs1DER: block.der))
        default: throw .malformedPEM
        }
    }

    /// Accepts a canonical SubjectPublicKeyInfo DER, as `subjectPublicKeyInfoDER` gives it (what the
    /// server stores for an account), under the same rules as `init(pem:)`.
    public init(subjectPublicKeyInfoDER der: [UInt8]) throws(PublicKeyError) {
        let pkey = try Self.parse(subjectPublicKeyInfo: der)
        // From here on `pkey` is ours: free it (and drop any queued OpenSSL errors) on every error path.
        var keep = false
        defer {
            if !keep {
                EVP_PKEY_free(pkey)
                ERR_clear_error()
            }
        }

        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA else { throw .notRSA }
        // Require canonical DER: OpenSSL tolerates some slack (e.g. bytes after the RSAPublicKey
        // inside the BIT STRING), and a key must have exactly one encoding and one fingerprint.
        guard let canonical = OpenSSLSupport.subjectPublicKeyInfoDER(of: pkey), canonical == der else {
            throw .malformedPEM
        }
        let bits = Int(EVP_PKEY_get_bits(pkey))
        guard Self.acceptedBits.contains(bits) else { throw .unsupportedSize(bits: bits) }
        guard Self.hasAcceptedExponent(pkey) else { throw .unsupportedExponent }

        keep = true
        self.pkey = pkey
        self.bits = bits
        self.signatureByteCount = Int(EVP_PKEY_get_size(pkey))
        self.subjectPublicKeyInfoDER = canonical
        self.fingerprint = SHA256Digest.hash(canonical)
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// true only when `signature` is a valid signature of `message` under `scheme`:
    /// - PSS: RSASSA-PSS, SHA-256, MGF1-SHA-256, any salt length (0, digest length, maximum, …);
    /// - PKCS#1: RSASSA-PKCS1-v1_5 with SHA-256.
    ///
    /// Never throws: empty, garbage or wrongly sized signatures give false. On failure the
    /// calling thread's OpenSSL error queue is cleared so errors don't leak into later calls.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], scheme: SignatureScheme) -> Bool {
        let valid = verify(signature, message, scheme)
        if !valid { ERR_clear_error() }
        return valid
    }

    private func verify(_ signature: [UInt8], _ message: [UInt8], _ scheme: SignatureScheme) -> Bool {
        // RFC 8017 (8.1.2 / 8.2.2): a signature not exactly k octets long is invalid. OpenSSL
        // would accept one with leading zero bytes stripped, which makes signatures malleable.
        guard signature.count == signatureByteCount else { return false }
        guard let mdctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(mdctx) }
        // `pctx` belongs to `mdctx` and is freed with it.
        var pctx: OpaquePointer?
        guard EVP_DigestVerifyInit(mdctx, &pctx, EVP_sha256(), nil, pkey) == 1, let pctx,
            OpenSSLSupport.configure(pctx, scheme: scheme, pssSaltLength: RSA_PSS_SALTLEN_AUTO)
        else { return false }
        let status = signature.withUnsafeBufferPointer { sig in
            OpenSSLSupport.withNonNullBytes(message) { tbs, tbsCount in
                EVP_DigestVerify(mdctx, sig.baseAddress, sig.count, tbs, tbsCount)
            }
        }
        // 0 means "bad signature", negative means an error; only exactly 1 is success.
        return status == 1
    }

    /// `d2i_PUBKEY` that must consume every byte; an owned `EVP_PKEY*` on success.
    private static func parse(subjectPublicKeyInfo der: [UInt8]) throws(PublicKeyError) -> OpaquePointer {
        let parsed: (key: OpaquePointer, consumed: Int)? = der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            return (key, cursor.map { $0 - base } ?? 0)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .malformedPEM
        }
        guard parsed.consumed == der.count else {
            EVP_PKEY_free(parsed.key)
            throw .malformedPEM
        }
        return parsed.key
    }

    private static func hasAcceptedExponent(_ pkey: OpaquePointer) -> Bool {
        var exponent: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &exponent) == 1, let exponent else {
            ERR_clear_error()
            return false
        }
        defer { BN_free(exponent) }
        return BN_is_word(exponent, 65537) == 1  // F4, the only exponent we allow
    }
}
