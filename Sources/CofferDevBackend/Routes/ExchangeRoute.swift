import Hummingbird

extension DevBackendState {
    /// `GET /mobile/platform/sso/exchange-token` (OMC's form): the third-party token comes as
    /// `Authorization: Bearer …`; the reply carries the backend's token.
    func addExchangeRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.exchange)) { request, _ -> Response in
            self.statistics.count(\.exchangeRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller), let thirdParty = caller.bearer,
                  let user = self.configuration.ssoTokens[thirdParty]
            else { return Reply.unauthorized("Bearer", error: "invalid_token") }
            return self.issue(.user(user), origin: .sso, clientID: nil, lifetime: self.configuration.exchangeTokenLifetime)
        }
    }
}
