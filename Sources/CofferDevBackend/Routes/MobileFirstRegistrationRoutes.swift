import CryptoExtras
import Hummingbird

extension DevBackendState {
    /// MobileFirst's client self-registration (docs/protocol.md 8.1):
    ///
    /// - `POST /{runtime}/api/registration/v1/self` with `{"signedRegistrationData": {header,
    ///   payload, signature}}`: a JWS signed by the key its header carries (`jwk`, RSA 2048 or
    ///   more), over `{"device": {"id", …}, "application": {"id", "clientPlatform", …}}`. 201 with
    ///   `Location: /{runtime}/api/registration/clients/{id}` and `{}`.
    /// - `PUT …/registration/v1/self/{id}`: the same body, signed by the key the client registered;
    ///   the new data replaces the old; 200 `{}`. An unknown id is 400 `INVALID_CLIENT_ID`.
    ///
    /// A body that is not that, or whose signature does not verify, is 403 `{"errorCode":
    /// "INVALID_REQUEST", "errorMsg": "Invalid request. …"}` (the Android SDK's "Invalid request.").
    func addMobileFirstRegistrationRoutes<Context: RequestContext>(to router: Router<Context>) {
        let mobileFirst = configuration.mobileFirst
        router.post(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.registration, mobileFirst))) { request, _ -> Response in
            self.statistics.count(\.registrations)
            let registration: (key: _RSA.Signing.PublicKey, data: JSON)
            switch await self.signedRegistration(request, registeredKey: nil) {
            case .success(let read): registration = read
            case .failure(let refusal): return refusal.response
            }
            let id = self.clients.register(.mobileFirst, key: registration.key, data: registration.data)
            let location = DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.registeredClients, mobileFirst) + "/" + id
            return Reply.json([:], status: .created, headers: [.location: location])
        }
        router.put(RouterPath(DevBackendPath.mobileFirstAPI(DevBackendPath.MobileFirst.registration, mobileFirst) + "/:id")) { request, context -> Response in
            self.statistics.count(\.registrationUpdates)
            guard let id = context.parameters.get("id"), let key = self.clients.key(of: id, of: .mobileFirst) else { return Reply.unknownClient() }
            switch await self.signedRegistration(request, registeredKey: key) {
            case .success(let read):
                self.clients.update(id, data: read.data)
                return Reply.json([:])
            case .failure(let refusal):
                return refusal.response
            }
        }
    }

    /// Why a registration was refused.
    struct RegistrationRefusal: Error {
        let reason: String
        var response: Response { Reply.mobileFirstError("INVALID_REQUEST", "Invalid request. \(reason)", status: .forbidden) }
    }

    /// The key and data of a registration body, checked: signed by the key the header carries,
    /// which must be `registeredKey` when given.
    private func signedRegistration(
        _ request: Request, registeredKey: _RSA.Signing.PublicKey?
    ) async -> Result<(key: _RSA.Signing.PublicKey, data: JSON), RegistrationRefusal> {
        let body: [String: JSON]
        do { body = try await JSONBody.read(request) } catch { return .failure(RegistrationRefusal(reason: "The body is not a JSON object.")) }
        guard let parts = body["signedRegistrationData"], let header = parts["header"]?.stringValue,
              let payload = parts["payload"]?.stringValue, let signature = parts["signature"]?.stringValue,
              let message = SignedMessage(header: header, payload: payload, signature: signature)
        else { return .failure(RegistrationRefusal(reason: "signedRegistrationData is not a JWS.")) }
        guard let key = message.headerKey else { return .failure(RegistrationRefusal(reason: "The header carries no RSA key of 2048 bits or more.")) }
        if let registeredKey, !RSANumbers.same(key, registeredKey) {
            statistics.count(\.refusedSignatures)
            return .failure(RegistrationRefusal(reason: "The key is not the one the client registered."))
        }
        guard message.isSigned(by: key) else {
            statistics.count(\.refusedSignatures)
            return .failure(RegistrationRefusal(reason: "The signature does not verify."))
        }
        let data = message.payload
        guard data["device"]?["id"]?.stringValue?.isEmpty == false, data["application"]?["id"]?.stringValue?.isEmpty == false,
              data["application"]?["clientPlatform"]?.stringValue?.isEmpty == false
        else { return .failure(RegistrationRefusal(reason: "device.id, application.id and application.clientPlatform are required.")) }
        return .success((key, data))
    }
}
