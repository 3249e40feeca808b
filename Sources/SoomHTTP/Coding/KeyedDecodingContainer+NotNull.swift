extension KeyedDecodingContainer {
    /// An optional member the contract does not allow to be `null`: absent is nil; `null` is a
    /// `DecodingError.valueNotFound` (`400 invalid_request` naming the field), not "absent".
    /// (The synthesized `decodeIfPresent` would take `null` for absent.)
    func decodeUnlessNull<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard self.contains(key) else { return nil }
        if try self.decodeNil(forKey: key) {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: self.codingPath + [key], debugDescription: "null is not allowed"))
        }
        return try self.decode(T.self, forKey: key)
    }
}
