import COpenSSL

/// A device private key for tests and load generators only — the server never holds private
/// keys. It generates RSA keys and signs, so test suites and benchmark tools can act as devices.
///
/// Failures inside OpenSSL while generating keys or signing trap (`fatalError`): for a test tool
/// they mean a broken environment or a programming error, never a condition to recover from.
///
/// `@unchecked Sendable`: the class only wraps an `EVP_PKEY*` that is never mutated after `init`;
/// every signing call uses its own contexts, which OpenSSL 3 supports from many threads at once.
public final class DevicePrivateKey: @unchecked Sendable {
    /// PSS salt length used when signing (verification accepts all of them).
    public enum PSSSaltLength: Sendable, Hashable, CaseIterable {
        /// 32 bytes, the SHA-256 digest length (most libraries' choice, e.g. Java, Go, `PSS.DIGEST_LENGTH`).
        case digestLength
        /// As long as the modulus allows (OpenSSL CLI default, `PSS.MAX_LENGTH`).
        case maximum
        /// No salt: a deterministic PSS signature.
        case zero

        fileprivate var openSSLValue: Int32 {
            switch self {
            case .digestLength: RSA_PSS_SALTLEN_DIGEST
            case .maximum: RSA_PSS_SALTLEN_MAX
            case .zero: 0
            }
        }
    }

    /// Owned; freed in `deinit`. Never mutated after `init`.
    private let pkey: OpaquePointer

    /// Generates a fresh RSA key with public exponent 65537. Any size OpenSSL supports can be
    /// generated (also ones `DevicePublicKey` refuses, to test that refusal).
    public init(bits: Int = 2048) {
        precondition(bits > 0 && bits <= Int(Int32.max), "DevicePrivateKey: invalid size \(bits)")
        // OpenSSL 3.0 keeps the key-type string pointer inside the EVP_PKEY_CTX rather than
        // copying it, so the C string must outlive the context, not just the call.
        let generated: OpaquePointer? = "RSA".withCString { keyType in
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else { return nil }
            defer { EVP_PKEY_CTX_free(ctx) }
            var key: OpaquePointer?
            guard EVP_PKEY_keygen_init(ctx) == 1,
                EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
                EVP_PKEY_generate(ctx, &key) == 1
            else { return nil }
            return key
        }
        guard let key = generated else {
            fatalError("RSA key generation (\(bits) bits) failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        self.pkey = key
    }

    /// Loads an unencrypted RSA private key from PEM: PKCS#8 (`BEGIN PRIVATE KEY`) or
    /// PKCS#1 (`BEGIN RSA PRIVATE KEY`). Throws ``PrivateKeyError``.
    public init(pem: String) throws {
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A password callback that refuses: without it OpenSSL would prompt on the terminal
            // for an encrypted key, which would hang a test run.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key = loaded else {
            ERR_clear_error()
            throw PrivateKeyError.malformedPEM
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw PrivateKeyError.notRSA
        }
        self.pkey = key
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Size of the RSA modulus in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String {
        encodePublicKey(structure: "SubjectPublicKeyInfo")
    }

    /// The public key as PKCS#1 PEM (`-----BEGIN RSA PUBLIC KEY-----`).
    public var publicKeyPKCS1PEM: String {
        // OSSL_ENCODER's "type-specific" structure for RSA is PKCS#1 RSAPublicKey; this avoids the
        // deprecated PEM_write_bio_RSAPublicKey.
        encodePublicKey(structure: "type-specific")
    }

    /// Signs `message` with SHA-256 under `scheme` (PSS uses MGF1-SHA-256 and `pssSaltLength`;
    /// `pssSaltLength` is ignored for PKCS#1 v1.5). Returns a signature as long as the modulus.
    public func signature(
        for message: [UInt8], scheme: SignatureScheme, pssSaltLength: PSSSaltLength = .digestLength
    ) -> [UInt8] {
        guard let mdctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(mdctx) }
        var pctx: OpaquePointer?  // owned by mdctx
        guard EVP_DigestSignInit(mdctx, &pctx, EVP_sha256(), nil, pkey) == 1, let pctx,
            OpenSSLSupport.configure(pctx, scheme: scheme, pssSaltLength: pssSaltLength.openSSLValue)
        else {
            fatalError("EVP_DigestSignInit failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        var length = Int(EVP_PKEY_get_size(pkey))
        var signature = [UInt8](repeating: 0, count: length)
        let status = signature.withUnsafeMutableBufferPointer { sig in
            OpenSSLSupport.withNonNullBytes(message) { tbs, tbsCount in
                EVP_DigestSign(mdctx, sig.baseAddress, &length, tbs, tbsCount)
            }
        }
        guard status == 1 else {
            fatalError("EVP_DigestSign failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        return Array(signature.prefix(length))
    }

    private func encodePublicKey(structure: String) -> String {
        // OpenSSL 3.0 stores the output type/structure pointers in the encoder context without
        // copying them, so both C strings must stay alive until encoding has finished.
        let pem: [UInt8]? = "PEM".withCString { outputType in
            structure.withCString { outputStructure in
                guard
                    let encoder = OSSL_ENCODER_CTX_new_for_pkey(
                        pkey, soom_evp_pkey_public_key_selection(), outputType, outputStructure, nil
                    )
                else { return nil }
                defer { OSSL_ENCODER_CTX_free(encoder) }
                guard let bio = BIO_new(BIO_s_mem()) else { return nil }
                defer { BIO_free(bio) }
                guard OSSL_ENCODER_CTX_get_num_encoders(encoder) > 0, OSSL_ENCODER_to_bio(encoder, bio) == 1 else {
                    return nil
                }
                return OpenSSLSupport.drain(bio)
            }
        }
        guard let pem, !pem.isEmpty else {
            fatalError("encoding the public key as \(structure) PEM failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        return String(decoding: pem, as: UTF8.self)
    }
}
