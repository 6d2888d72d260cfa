import Foundation

extension ClientAccessWire {
    /// The CSR's payload, as the SDKs' `createRegistrationParams` builds it.
    func registrationData(deviceID: String) -> JSONValue {
        [
            "deviceId": .string(deviceID), "deviceOs": .string(DeviceDescription.operatingSystem),
            "deviceModel": .string(DeviceDescription.machine), "applicationId": .string(server.applicationID),
            "applicationVersion": .string(server.applicationVersion), "environment": .string(ClientAccessPath.environment),
        ]
    }

    /// `POST clients/instance` with the form field `CSR`: the registration data signed with a new
    /// key whose public half the header carries (`jpk`). The server answers
    /// `{"certificate", "clientId"}`; the certificate must hold this key and be valid.
    func register(deviceID: String, transport: HTTPTransport, at now: Date) async throws(AuthError) -> ClientRegistration {
        let key = try ClientKey.generate()
        let csr = try CompactJWS.sign(header: try Self.header(key), payload: registrationData(deviceID: deviceID), with: key)
        let response = try await transport.send(post(ClientAccessPath.registration, [("CSR", csr.compact)]))
        let reply = try ClientAccessReply.registration(response)
        try ClientCertificate.check(reply.certificate, holds: key, at: now)
        return ClientRegistration(clientID: reply.clientID, key: key)
    }
}
