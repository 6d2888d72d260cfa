/// The client a token, revocation or device authorization request comes from.
enum AuthenticatedClient {
    /// An OAuth client of ``DevBackend/Configuration/clients`` (HTTP Basic).
    case oauth(String)
    /// A client of the OpenID provider.
    case openID(OpenIDClientRegistration)

    var id: String {
        switch self {
        case .oauth(let id): id
        case .openID(let client): client.id
        }
    }
}

extension DevBackendState {
    /// The client, authenticated as RFC 6749 §2.3 says: HTTP Basic (`client_secret_basic`, each
    /// part form-decoded) for the OAuth clients and confidential OpenID clients;
    /// `client_id` and `client_secret` in the form (`client_secret_post`) for confidential
    /// OpenID clients; `client_id` alone (`none`) for public ones. A request that uses two
    /// methods, or names another `client_id` in the form than in the header, is refused.
    /// `oauthClients: false` leaves the OAuth clients out (the device endpoint).
    func authenticateClient(_ caller: Caller, form: FormBody, oauthClients: Bool = true) -> AuthenticatedClient? {
        let openID = configuration.openID
        if caller.basic != nil {
            guard form["client_secret"] == nil else { return nil }
            let client: AuthenticatedClient? =
                if oauthClients, let id = caller.client(among: configuration.clients) {
                    .oauth(id)
                } else if let id = caller.client(secretOf: { openID.client($0)?.secret }), let registration = openID.client(id) {
                    .openID(registration)
                } else {
                    nil
                }
            guard let client, form["client_id"].map({ $0 == client.id }) ?? true else { return nil }
            return client
        }
        guard let id = form["client_id"], let registration = openID.client(id) else { return nil }
        if let secret = registration.secret {
            guard let given = form.values["client_secret"], Secrets.equal(secret, given) else { return nil }
        }
        return .openID(registration)
    }
}
