import COpenSSL

/// Small helpers shared by the OpenSSL wrappers. Internal: nothing here is API.
enum OpenSSLSupport {
    /// Calls `body` with a pointer that is never nil, even for an empty array.
    ///
    /// Swift gives a nil base address for empty arrays; several OpenSSL entry points treat a
    /// NULL data pointer as "size query" or as an error rather than as zero bytes.
    static func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return body(base, buffer.count) }
            var zero: UInt8 = 0
            return withUnsafePointer(to: &zero) { body($0, 0) }
        }
    }

    /// Everything currently readable from a memory BIO, as bytes.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            guard read > 0 else { break }
            result.append(contentsOf: chunk[0..<Int(read)])
        }
        return result
    }

    /// The SubjectPublicKeyInfo DER of a key (`i2d_PUBKEY`), or nil if OpenSSL cannot encode it.
    static func subjectPublicKeyInfoDER(of pkey: OpaquePointer) -> [UInt8]? {
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        return written == length ? der : nil
    }

    /// The oldest error on this thread's OpenSSL error queue, as text (for fatal error messages).
    static func lastErrorDescription() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no OpenSSL error recorded" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Configures an `EVP_PKEY_CTX` obtained from `EVP_DigestSignInit`/`EVP_DigestVerifyInit`
    /// for `scheme`. `pssSaltLength` is an OpenSSL salt length (e.g. `RSA_PSS_SALTLEN_AUTO`).
    static func configure(_ pctx: OpaquePointer, scheme: SignatureScheme, pssSaltLength: Int32) -> Bool {
        switch scheme {
        case .rsaPSSSHA256:
            // MGF1 must be pinned to SHA-256 explicitly: it is part of what we accept, and a
            // signature made with MGF1-SHA-1 has to fail.
            return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, pssSaltLength) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) == 1
        case .rsaPKCS1v15SHA256:
            return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1
        }
    }
}
