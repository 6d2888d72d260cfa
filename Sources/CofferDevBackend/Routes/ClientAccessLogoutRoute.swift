import Hummingbird

extension DevBackendState {
    /// MCA's `GET /imf-authserver/authorization/v1/apps/{tenant}/logout?client_id=…` (with
    /// `X-WL-Session`): revokes the client's tokens; 200 `{}`. An unknown client is 400.
    func addClientAccessLogoutRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(DevBackendPath.clientAccess(DevBackendPath.ClientAccess.logout, configuration.clientAccess))) { request, _ -> Response in
            guard Self.session(of: request) != nil else { return Self.missingSession() }
            guard let clientID = self.query(request)["client_id"], self.clients.contains(clientID, of: .clientAccess) else {
                return Reply.unknownClient()
            }
            self.tokens.revokeAll(of: clientID)
            self.statistics.count(\.checkLogouts)
            return Reply.json([:])
        }
    }
}
