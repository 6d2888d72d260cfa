import Hummingbird

extension DevBackendState {
    /// MCA's `POST /imf-authserver/authorization/v1/apps/{tenant}/clients/instance` (docs/protocol.md
    /// 9.1): the form field `CSR`, a JWS signed by the key its header carries (`jpk`, RSA 2048 or
    /// more) over `{"deviceId", "applicationId", …}`, with `X-WL-Session`. 200
    /// `{"certificate": <base64 DER>, "clientId"}`, the certificate for that key. A CSR that is
    /// not that, or whose signature does not verify, is 400 `{"errorCode": "INVALID_REQUEST"}`.
    func addClientAccessRegistrationRoute<Context: RequestContext>(to router: Router<Context>) {
        router.post(RouterPath(DevBackendPath.clientAccess(DevBackendPath.ClientAccess.registration, configuration.clientAccess))) { request, _ -> Response in
            self.statistics.count(\.registrations)
            guard Self.session(of: request) != nil else { return Self.missingSession() }
            let form: FormBody
            do { form = try await FormBody.read(request) } catch let refusal as FormBody.Refusal {
                return Reply.mobileFirstError("INVALID_REQUEST", refusal.description, status: .badRequest)
            }
            guard let csr = form["CSR"], let message = SignedMessage(compact: csr) else {
                return Reply.mobileFirstError("INVALID_REQUEST", "CSR is not a JWS", status: .badRequest)
            }
            guard let key = message.headerKey, message.header["jpk"] != nil else {
                return Reply.mobileFirstError("INVALID_REQUEST", "the CSR's header carries no jpk RSA key of 2048 bits or more", status: .badRequest)
            }
            guard message.isSigned(by: key) else {
                self.statistics.count(\.refusedSignatures)
                return Reply.mobileFirstError("INVALID_REQUEST", "the CSR's signature does not verify", status: .badRequest)
            }
            guard message.payload["deviceId"]?.stringValue?.isEmpty == false, message.payload["applicationId"]?.stringValue?.isEmpty == false else {
                return Reply.mobileFirstError("INVALID_REQUEST", "deviceId and applicationId are required", status: .badRequest)
            }
            let id = self.clients.register(.clientAccess, key: key, data: message.payload)
            let certificate = try self.certificateAuthority.issue(for: key, clientID: id, now: self.now)
            return Reply.json(["certificate": .string(certificate), "clientId": .string(id)])
        }
    }

    /// The `X-WL-Session` of an MCA request.
    static func session(of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == "x-wl-session" }.map(\.value).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// 400 for an MCA request without `X-WL-Session`.
    static func missingSession() -> Response {
        Reply.mobileFirstError("INVALID_REQUEST", "X-WL-Session is required", status: .badRequest)
    }
}
