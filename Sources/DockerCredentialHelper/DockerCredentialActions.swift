import Coffer
import FoundationEssentials

/// docker's helper operations on a store. Each registry's credentials are an internet password:
/// its server is the `ServerURL` exactly as docker names it, its account the `Username`, its
/// label `Docker Credentials` and its custom attribute `docker_cli` = `1` (the marks
/// docker-credential-secretservice gives its items), its internet attributes what the URL names.
/// One credential a server URL, as docker expects: `store` replaces any other user's.
struct DockerCredentialActions {
    let store: any CredentialStore

    static let label = "Docker Credentials"
    static let markAttribute = "docker_cli"

    func store(_ credentials: DockerCredentials) throws {
        try credentials.validate()
        let id = ItemID.internetPassword(server: credentials.serverURL, account: credentials.username)
        if let existing = try store.items(matching: ItemQuery(itemClass: id.itemClass, service: id.service, account: id.account)).first,
           existing.custom[Self.markAttribute] == nil {
            throw DockerHelperError.notOurs
        }
        // The new item first, then the other users' for the same URL: a crash between the two
        // leaves both (get answers the newer), never neither.
        try store.set(Data(credentials.secret.utf8), for: id, options: Self.options(for: credentials.serverURL))
        for stale in try items(for: credentials.serverURL) where stale.id != id {
            try store.remove(stale.id)
        }
    }

    /// The credentials stored for `serverURL`; an empty secret reads as none, as in docker's helpers.
    func get(_ serverURL: String) throws -> DockerCredentials {
        guard let newest = try items(for: serverURL).max(by: { $0.modified < $1.modified }),
              let item = try store.item(for: newest.id), !item.secret.isEmpty
        else { throw DockerHelperError.notFound }
        guard let secret = String(validating: item.secret, as: UTF8.self) else {
            throw DockerHelperError.invalidInput("the stored secret is not UTF-8 text")
        }
        return DockerCredentials(serverURL: serverURL, username: item.attributes.id.account, secret: secret)
    }

    /// Removes the credentials for `serverURL`; none is not an error.
    func erase(_ serverURL: String) throws {
        try store.removeAll(matching: Self.query(serverURL: serverURL))
    }

    /// Every server URL with its user name.
    func list() throws -> [String: String] {
        var users: [String: (String, Date)] = [:]
        for item in try store.items(matching: Self.query(serverURL: nil)) where (users[item.id.service]?.1 ?? .distantPast) <= item.modified {
            users[item.id.service] = (item.id.account, item.modified)
        }
        return users.mapValues(\.0)
    }

    private func items(for serverURL: String) throws -> [ItemAttributes] {
        try store.items(matching: Self.query(serverURL: serverURL))
    }

    private static func query(serverURL: String?) -> ItemQuery {
        ItemQuery(itemClass: .internetPassword, service: serverURL, custom: [markAttribute: "1"])
    }

    /// The label, the mark and the URL's protocol, port and path (`https://index.docker.io/v1/`,
    /// `registry.example:5000`).
    static func options(for serverURL: String) -> ItemOptions {
        let components = URLComponents(string: serverURL.contains("://") ? serverURL : "//" + serverURL)
        let internet = InternetAttributes(
            protocol: components?.scheme, port: components?.port, path: components.flatMap { $0.path.isEmpty ? nil : $0.path })
        return ItemOptions(label: label, custom: [markAttribute: "1"], internet: internet)
    }
}
