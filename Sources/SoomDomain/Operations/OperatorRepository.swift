import Foundation

/// What operators write with `soom admin`, as the server reads it: the switches every instance
/// keeps (`OperatorSwitches`) and the notices clients list.
public protocol OperatorRepository: Sendable {
    /// The switches as stored now, in one read.
    func switches() async throws -> OperatorSwitches.Settings
    /// A page of notices, newest first.
    func notices(after position: FeedPosition?, limit: Int) async throws -> ListPage<Notice>
}
