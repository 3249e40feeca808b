import Hummingbird
import SoomDomain

/// The signed-in account's own routes: `GET`, `PATCH` and `DELETE /v1/me`, and `POST /v1/me/transfer-codes`.
struct MeReactor: Reactor {
    enum Action: Sendable {
        case show
        case update(UpdateProfile.Input)
        case withdraw(reason: String, proof: AccountProof)
        case issueTransferCode(AccountProof)
    }

    enum Mutation: Sendable {
        case loaded(Account)
        case updated(Account)
        case withdrew
        case issuedTransferCode(IssueTransferCode.Issued)
    }

    enum State: Sendable, Equatable {
        /// `200` with the account.
        case account(Account)
        /// `204`.
        case withdrawn
        /// `201`.
        case transferCode(IssueTransferCode.Issued)
    }

    let caller: Authenticate.Caller
    let showAccount: ShowAccount
    let updateProfile: UpdateProfile
    let withdraw: Withdraw
    let issueTransferCode: IssueTransferCode

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .show:
            return [.loaded(try await self.showAccount(self.caller))]
        case .update(let input):
            return [.updated(try await self.updateProfile(self.caller, input))]
        case .withdraw(let reason, let proof):
            try await self.withdraw(self.caller, reason: reason, proof: proof)
            return [.withdrew]
        case .issueTransferCode(let proof):
            return [.issuedTransferCode(try await self.issueTransferCode(self.caller, proof: proof))]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .loaded(let account), .updated(let account): .account(account)
        case .withdrew: .withdrawn
        case .issuedTransferCode(let issued): .transferCode(issued)
        }
    }
}

extension MeReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .account(let account): JSON.response(.ok, writing: IdentityResponses.Me(account: account), capacity: 512)
        case .withdrawn: Response(status: .noContent)
        case .transferCode(let issued):
            JSON.response(.created, writing: IdentityResponses.TransferCode(code: issued.code, expiresAt: issued.expiresAt), capacity: 128)
        }
    }
}
