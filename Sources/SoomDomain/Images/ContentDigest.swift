/// SHA-256 of some bytes in lower-case hexadecimal (64 digits): an upload's `ETag`, and the
/// built-in pictures' and web client files' entity tags and version. Implemented with OpenSSL
/// (the composition root passes it in); the domain and the HTTP layer never hash by themselves.
public typealias ContentDigest = @Sendable ([UInt8]) -> String
