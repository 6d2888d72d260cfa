import ArgumentParser
import CofferAuth
import CofferBase
import CofferCommandLine

struct Logout: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.logout.configuration(
        discussion: """
            Everything local is removed even when the backend is unreachable; a step that failed \
            is named, with exit status \(ExitStatus.logoutIncomplete.rawValue). With --all, every session and client in the store ends: \
            the login (token revoked), and every MobileFirst and Mobile Client Access client \
            (logged out of its security checks where the server allows); then every item of \
            service coffer.auth is removed, client keys and secrets included.
            """)

    @ParentCommand var root: CofferAuthCommand

    @Flag(help: "End every OpenID login, session and challenge client, and remove every coffer.auth item.")
    var all = false

    @OptionGroup var openIDProfile: ProfileOption

    var vaultOptions: VaultOptions? { root.vault }

    /// A login this command ends: its client, how to name it, and what to forget once it is out.
    private struct StoredLogin {
        let owner: String
        let client: any AuthorizationClient
        let ended: (LogoutReport?) -> String
        let forget: () throws -> Void
    }

    func run() async throws {
        let profile = AuthProfile(store: try root.store(), network: root.network)
        var failures: [String] = []
        let logins = all ? try everyLogin(profile, failures: &failures) : try selectedLogin(profile).map { [$0] } ?? []
        guard !logins.isEmpty || all else { return try StandardStreams.printLine("not logged in") }
        var lines: [String] = []
        for login in logins {
            let report: LogoutReport?
            do throws(AuthError) {
                report = try await login.client.logout()
            } catch {
                report = nil
                failures += Self.failedSteps(error, of: all ? login.owner : nil)
            }
            try login.forget()
            lines.append(login.ended(report))
        }
        if all {
            // OpenID sessions whose profile settings are gone (another tool's, or damaged) go too, unrevoked.
            for login in try OpenIDClient.storedLogins(in: profile.keychain.store) {
                try OpenIDClient.forget(login, in: profile.keychain.store)
                lines.append("removed the OpenID session of profile \(TerminalText.escaped(login.profile)) (not revoked: its settings are gone)")
            }
            lines.append("removed \(try profile.keychain.removeAll()) remaining coffer.auth item(s)")
        }
        try StandardStreams.write(Array(lines.map { $0 + "\n" }.joined().utf8))
        guard failures.isEmpty else {
            let summary = all ? "logout incomplete (everything local is removed): " : "logout incomplete: "
            throw CLIError(message: summary + failures.joined(separator: "; "), exitStatus: .logoutIncomplete)
        }
    }

    /// The steps of one logout that failed, each named once, with what it belongs to when
    /// several logins end: an incomplete logout lists its own steps, which the summary must not
    /// wrap in a second "logout incomplete".
    static func failedSteps(_ error: AuthError, of owner: String?) -> [String] {
        let prefix = owner.map { "\($0): " } ?? ""
        guard case .logoutIncomplete(let steps) = error else { return [prefix + error.description] }
        return steps.map { prefix + $0.description }
    }

    /// The login that `--profile`, or else the stored state, names: an OpenID profile, or the
    /// mobile backend's session; `nil` when there is none.
    private func selectedLogin(_ profile: AuthProfile) throws -> StoredLogin? {
        if let name = openIDProfile.profile, name == (try profile.brokeredProfile()) { return try backendLogin(profile) }
        if try openIDProfile.profile != nil || root.defaultsToOpenID() {
            return try openIDLogin(openIDProfile.name, profile)
        }
        return try backendLogin(profile)
    }

    /// Every login the store holds: each OpenID profile, the mobile backend's session, and each
    /// MobileFirst and Mobile Client Access client. Settings that cannot be read are `failures`.
    private func everyLogin(_ profile: AuthProfile, failures: inout [String]) throws -> [StoredLogin] {
        var logins = try OpenIDProfile.names(in: profile.keychain).map { try openIDLogin($0, profile) }
        do {
            if let backend = try backendLogin(profile) { logins.append(backend) }
        } catch let error as CLIError {
            failures.append(error.message)  // its settings are unreadable (and removed): nothing to end at the server
        }
        for server in try ChallengeClient.storedServers(in: profile.keychain.store) {
            let name = TerminalText.escaped(server.url.absoluteString)
            logins.append(StoredLogin(
                owner: name, client: ChallengeClient(server: server, store: profile.keychain.store, configuration: profile.configuration),
                ended: { _ in "ended the client of \(name)" }, forget: {}))
        }
        return logins
    }

    /// The OpenID login `name`: its tokens are revoked, then its settings forgotten.
    private func openIDLogin(_ name: String, _ profile: AuthProfile) throws -> StoredLogin {
        let (client, _) = try root.openIDClient(profile: name)
        let shown = TerminalText.escaped(name)
        return StoredLogin(
            owner: "profile \(shown)", client: client,
            ended: { report in "logged out of profile \(shown)" + (report?.revoked == true ? "; tokens revoked" : "") },
            forget: { try profile.keychain.remove(OpenIDProfile.account(name)) })
    }

    /// The mobile backend's session of `coffer login --backend-url`; `nil` when there is none.
    private func backendLogin(_ profile: AuthProfile) throws -> StoredLogin? {
        let backend: MobileBackend?
        do {
            backend = try profile.backend()
        } catch {
            try profile.removeBackend()
            throw error
        }
        guard let backend else { return nil }
        return StoredLogin(
            owner: "the mobile backend", client: try profile.storedAuthorization(for: backend),
            ended: { report in "logged out" + (report?.revoked == true ? "; token revoked" : "") },
            forget: {
                try profile.removeBackend()
                try profile.saveBrokeredProfile(nil)
            })
    }
}
