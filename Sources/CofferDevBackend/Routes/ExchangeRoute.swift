import Hummingbird

extension DevBackendState {
    /// `GET /mobile/platform/sso/exchange-token` (OMC's form): the third-party token comes as
    /// `Authorization: Bearer …`; the reply carries the backend's token. A refused token gets 401
    /// with Oracle's error body.
    func addExchangeRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.exchange)) { request, _ -> Response in
            self.statistics.count(\.exchangeRequests)
            let caller = Caller(request)
            guard self.acceptsBackendID(caller), let thirdParty = caller.bearer,
                  let user = self.configuration.ssoTokens[thirdParty]
            else {
                return Reply.mobileHubError(
                    status: .unauthorized, title: "Token exchange failed", detail: "The third-party token is not valid for this mobile backend.",
                    code: "MOBILE-16011", path: DevBackendPath.exchange, headers: [.wwwAuthenticate: #"Bearer realm="coffer-dev", error="invalid_token""#])
            }
            return self.issue(.user(user), origin: .sso, clientID: nil, lifetime: self.configuration.exchangeTokenLifetime)
        }
    }
}
