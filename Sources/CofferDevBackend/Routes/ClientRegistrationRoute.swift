import CofferAuth
import Hummingbird

extension DevBackendState {
    /// `POST /{runtime}/api/registration/v1/self` (MobileFirst) and
    /// `POST /imf-authserver/authorization/v1/apps/{tenant}/clients/instance` (MCA): registers a
    /// client; 201 `{"client_id", "client_secret"}`.
    func addClientRegistrationRoutes<Context: RequestContext>(to router: Router<Context>) {
        let paths = [
            DevBackendPath.mobileFirst(MobileFirstPath.registration, configuration.mobileFirst),
            DevBackendPath.clientAccess(ClientAccessPath.registration, configuration.clientAccess),
        ]
        for path in paths {
            router.post(RouterPath(path)) { request, _ -> Response in
                self.statistics.count(\.registrations)
                let body: [String: JSONValue]
                do { body = try await JSONBody.read(request) } catch let refusal as FormBody.Refusal {
                    return Reply.oauthError("invalid_request", refusal.description)
                }
                guard body["application"]?["id"]?.stringValue?.isEmpty == false else {
                    return Reply.oauthError("invalid_request", "application.id is required")
                }
                let client = self.clients.register()
                return Reply.json(["client_id": .string(client.id), "client_secret": .string(client.secret)], status: .created)
            }
        }
    }
}
