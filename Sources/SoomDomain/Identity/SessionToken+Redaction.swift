/// Tokens are secrets: they never appear in logs, descriptions or debug dumps.
extension SessionToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SessionToken(token: <redacted>, expiresAt: \(self.expiresAt))" }
    public var debugDescription: String { self.description }
    public var customMirror: Mirror { Mirror(self, children: ["expiresAt": self.expiresAt]) }
}

/// Transfer codes are secrets too.
extension IssueTransferCode.Issued: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "TransferCode(code: <redacted>, expiresAt: \(self.expiresAt))" }
    public var debugDescription: String { self.description }
    public var customMirror: Mirror { Mirror(self, children: ["expiresAt": self.expiresAt]) }
}
