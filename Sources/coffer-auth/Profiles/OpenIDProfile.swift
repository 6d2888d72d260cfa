import ArgumentParser
import Coffer
import CofferAuth
import CofferCommandLine
import Foundation

/// What `coffer login --issuer` remembers for a profile, so later commands (`token`, `status`,
/// `request`, `logout`) reach the same provider and client: the provider's endpoints, the client
/// id and, for a confidential client, its secret. Kept in the store (service `coffer.auth`,
/// account `openid <profile>`); the session itself is `OpenIDClient`'s own item.
struct OpenIDProfile: Codable {
    var provider: OpenIDProvider
    var clientID: String
    var clientSecret: String?

    static let accountPrefix = "openid "
    static let defaultName = ProfileOption.defaultName

    static func account(_ profile: String) -> String { accountPrefix + profile }

    /// The profile named `name`, or `nil` when none was saved.
    static func load(_ name: String, from keychain: Keychain) throws -> OpenIDProfile? {
        guard let data = try keychain.data(for: account(name)) else { return nil }
        guard let profile = try? JSONDecoder().decode(OpenIDProfile.self, from: data) else {
            throw CLIError(message: "the stored settings of profile \(name) are unreadable; run `coffer logout --profile \(name)`", exitStatus: .dataError)
        }
        return profile
    }

    func save(as name: String, in keychain: Keychain) throws {
        try keychain.set(try JSONEncoder().encode(self), for: Self.account(name), options: ItemOptions(label: "coffer OpenID profile \(name)"))
    }

    /// The profiles saved in `keychain`.
    static func names(in keychain: Keychain) throws -> [String] {
        try keychain.allKeys().filter { $0.hasPrefix(accountPrefix) }.map { String($0.dropFirst(accountPrefix.count)) }
    }

    /// A client of this profile's provider, keeping its session in `store`; or, when `store` is
    /// the vault through the agent, in the agent's token broker, which refreshes it (docs/agent.md,
    /// "The token broker"): then this process never holds the refresh token after a login.
    func client(
        profile name: String, store: any CredentialStore, network: NetworkOptions, loginTimeout: Duration? = nil,
        redirectURI: LoopbackRedirectURI? = nil
    ) -> OpenIDClient {
        var configuration = AuthProfile.configuration(network: network)
        configuration.redirectURI = redirectURI
        if let loginTimeout { configuration.loginTimeout = loginTimeout }
        if let agent = CofferAuthCommand.agent(behind: store) {
            let broker = AgentTokenBroker.commandLine(agent)
            return OpenIDClient(
                provider: provider, clientID: clientID, clientSecret: clientSecret, broker: broker, profile: name, configuration: configuration)
        }
        return OpenIDClient(provider: provider, clientID: clientID, clientSecret: clientSecret, store: store, profile: name, configuration: configuration)
    }
}
