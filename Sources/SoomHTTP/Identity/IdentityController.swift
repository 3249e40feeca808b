import Hummingbird
import SoomDomain

/// The routes of the contract's *Device identity* section. Each handler turns the request into
/// an action and hands it to its reactor; nothing else happens here.
struct IdentityController {
    let environment: IdentityEnvironment

    func addRoutes(public routes: APIRoutes<AppRequestContext>, authenticated: APIRoutes<AuthenticatedContext>) {
        routes.on("/auth/challenges", method: .post, limit: .challenges, servedInMaintenance: true) { _, context in
            try await ChallengeReactor(issueChallenge: IssueChallenge(self.environment)).respond(to: .issue, context: context)
        }
        routes.on("/accounts", method: .post, limit: .accountCreation) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.Register.self)
            let input = RegisterAccount.Input(
                proof: body.proof.deviceProof, nickname: body.nickname, profileImage: body.profileImage?.choice,
                language: .init(acceptLanguage: request.headers[.acceptLanguage]))
            return try await self.accountReactor.respond(to: .register(input), context: context)
        }
        routes.on("/accounts/transfer", method: .post) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.Transfer.self)
            return try await self.accountReactor.respond(to: .transfer(code: body.code, proof: body.proof.deviceProof), context: context)
        }
        routes.on("/sessions", method: .post, servedInMaintenance: true) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.Proof.self)
            return try await self.sessionReactor.respond(to: .signIn(body.deviceProof), context: context)
        }
        routes.on("/nicknames/suggestion", method: .get) { request, context in
            let language = NicknameSuggester.Language(acceptLanguage: request.headers[.acceptLanguage])
            return try await self.nicknameReactor.respond(to: .suggest(language), context: context)
        }
        routes.on("/nicknames/validation", method: .post, servedInMaintenance: true) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.ValidateNickname.self)
            return try await self.nicknameReactor.respond(to: .validate(body.nickname), context: context)
        }

        authenticated.on("/sessions/current", method: .delete, servedInMaintenance: true) { _, context in
            try await self.sessionReactor.respond(to: .signOut(context.caller), context: context)
        }
        authenticated.on("/me", method: .get) { _, context in
            try await self.meReactor(context).respond(to: .show, context: context)
        }
        authenticated.on("/me", method: .patch) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.UpdateMe.self)
            return try await self.meReactor(context).respond(to: .update(body.input), context: context)
        }
        authenticated.on("/me", method: .delete) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.Withdraw.self)
            return try await self.meReactor(context).respond(
                to: .withdraw(reason: body.reason ?? "", proof: body.proof.accountProof), context: context)
        }
        authenticated.on("/me/transfer-codes", method: .post) { request, context in
            let body = try await request.decodeJSON(as: IdentityRequests.AccountSignature.self)
            return try await self.meReactor(context).respond(to: .issueTransferCode(body.accountProof), context: context)
        }
    }

    private var accountReactor: AccountReactor {
        AccountReactor(registerAccount: RegisterAccount(self.environment), transferAccount: TransferAccount(self.environment))
    }

    private var sessionReactor: SessionReactor {
        SessionReactor(signIn: SignIn(self.environment), signOut: SignOut(self.environment))
    }

    private var nicknameReactor: NicknameReactor {
        NicknameReactor(suggestNickname: SuggestNickname(self.environment), checkNickname: CheckNickname(self.environment))
    }

    private func meReactor(_ context: AuthenticatedContext) -> MeReactor {
        MeReactor(
            caller: context.caller, showAccount: ShowAccount(self.environment), updateProfile: UpdateProfile(self.environment),
            withdraw: Withdraw(self.environment), issueTransferCode: IssueTransferCode(self.environment))
    }
}
