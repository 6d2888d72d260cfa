import Foundation

extension MobileFirstWire {
    /// The data a client registers with, as the web SDK's `paramsForRegistrationRequest` sends
    /// it: the device (its id, and in place of the browser's user agent and platform, the
    /// operating system and machine) and the application (`clientPlatform` `web`, the app's id).
    func registrationData(deviceID: String) -> JSONValue {
        [
            "device": ["id": .string(deviceID), "platform": .string(DeviceDescription.operatingSystem), "hardware": .string(DeviceDescription.machine)],
            "application": ["clientPlatform": .string(MobileFirstPath.clientPlatform), "id": .string(server.applicationID)],
        ]
    }

    /// `POST registration/v1/self` with `{"signedRegistrationData": {header, payload, signature}}`:
    /// the data signed with a new key whose public half the header carries. The server answers
    /// 201 with the client's URL in `Location`; its last segment is the client id.
    func register(deviceID: String, transport: HTTPTransport, at now: Date) async throws(AuthError) -> ClientRegistration {
        let key = try ClientKey.generate()
        let data = registrationData(deviceID: deviceID)
        let response = try await send(request(.post, MobileFirstPath.registration, json: try signedRegistration(data, key: key)), transport: transport)
        return ClientRegistration(clientID: try MobileFirstReply.registeredClientID(response), key: key, registeredData: data)
    }

    /// When the data changed since the client registered, `PUT registration/v1/self/{id}` with
    /// the new data signed by the same key (the SDKs' `shouldRegister`); the server answers 200.
    func update(_ client: ClientRegistration, deviceID: String, transport: HTTPTransport) async throws(AuthError) -> RegistrationUpdate {
        let data = registrationData(deviceID: deviceID)
        guard data != client.registeredData else { return .current }
        let path = MobileFirstPath.registration + "/" + FormEncoding.escape(client.clientID)
        let response = try await send(request(.put, path, json: try signedRegistration(data, key: client.key)), transport: transport)
        if MobileFirstReply.isUnknownClient(response) { return .unknownClient }
        guard response.isSuccess else { throw ErrorReply.error(for: response) }
        var updated = client
        updated.registeredData = data
        return .updated(updated)
    }

    /// The registration body: the three segments of the JWS (the SDKs' `decomponentJWS`). The
    /// header carries the public key with no `kid`.
    private func signedRegistration(_ data: JSONValue, key: ClientKey) throws(AuthError) -> [String: JSONValue] {
        let jws = try CompactJWS.sign(header: try ClientAssertion.header(key: key, clientID: nil), payload: data, with: key)
        return ["signedRegistrationData": ["header": .string(jws.header), "payload": .string(jws.payload), "signature": .string(jws.signature)]]
    }
}
