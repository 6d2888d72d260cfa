import ArgumentParser
import CofferAuth
import CofferCommandLine

struct Logout: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Log out: remove the session from the vault, then revoke the token.",
        discussion: """
            Everything local is removed even when the backend is unreachable; a step that failed \
            is named, with exit status 6. With --all, every session and client in the store ends: \
            the login (token revoked), and every MobileFirst and Mobile Client Access client \
            (logged out of its security checks where the server allows); then every item of \
            service coffer.auth is removed, client keys and secrets included.
            """)

    @ParentCommand var root: CofferAuthCommand

    @Flag(help: "End every OpenID login, session and challenge client, and remove every coffer.auth item.")
    var all = false

    @OptionGroup var openIDProfile: ProfileOption

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        let profile = AuthProfile(store: try root.store(), network: root.network)
        guard all else {
            if try openIDProfile.profile != nil || root.defaultsToOpenID() {
                try StandardStreams.printLine(try await logOutOfOpenID(openIDProfile.name, profile))
            } else {
                try await logOutOfTheBackend(profile)
            }
            return
        }
        var failures: [String] = []
        var lines: [String] = []
        for name in try OpenIDProfile.names(in: profile.keychain) {
            do {
                lines.append(try await logOutOfOpenID(name, profile))
            } catch let error as AuthError {
                failures += Self.failedSteps(error, of: "profile \(TerminalText.escaped(name))")
            }
        }
        // OpenID sessions whose profile settings are gone (another tool's, or damaged) go too, unrevoked.
        let store = try root.store()
        for login in try OpenIDClient.storedLogins(in: store) {
            try OpenIDClient.forget(login, in: store)
            lines.append("removed the OpenID session of profile \(TerminalText.escaped(login.profile)) (not revoked: its settings are gone)")
        }
        do {
            if let line = try await logOutOfTheBackend(profile, quietly: true) { lines.append(line) }
        } catch let error as AuthError {
            failures += Self.failedSteps(error, of: "the mobile backend")
        } catch let error as CLIError {
            failures.append(error.message)
        }
        for server in try ChallengeClient.storedServers(in: profile.keychain) {
            let client = ChallengeClient(
                server: server, keychain: profile.keychain,
                configuration: ChallengeClient.Configuration(logger: AuthProfile.logger, allowInsecureHTTP: profile.allowsInsecureHTTP))
            do {
                try await client.authorizationManager.logoutAll()
            } catch {
                failures += Self.failedSteps(error, of: TerminalText.escaped(server.url.absoluteString))
            }
            lines.append("ended the client of \(TerminalText.escaped(server.url.absoluteString))")
        }
        let removed = try profile.keychain.removeAll()
        lines.append("removed \(removed) remaining coffer.auth item(s)")
        try StandardStreams.write(Array(lines.map { $0 + "\n" }.joined().utf8))
        guard failures.isEmpty else {
            throw CLIError(message: "logout incomplete (everything local is removed): " + failures.joined(separator: "; "), exitStatus: 6)
        }
    }

    /// The steps of one logout that failed, each named once with what it belongs to: an
    /// incomplete logout lists its own steps, which the summary must not wrap in a second
    /// "logout incomplete".
    static func failedSteps(_ error: AuthError, of owner: String) -> [String] {
        guard case .logoutIncomplete(let steps) = error else { return ["\(owner): \(error.description)"] }
        return steps.map { "\(owner): \($0.description)" }
    }

    /// Logs out of the OpenID login `name` (revoking its tokens) and forgets its settings.
    private func logOutOfOpenID(_ name: String, _ profile: AuthProfile) async throws -> String {
        let (client, _) = try root.openIDClient(profile: name)
        let outcome: Result<LogoutReport, AuthError>
        do throws(AuthError) { outcome = .success(try await client.logout()) } catch { outcome = .failure(error) }
        try profile.keychain.remove(OpenIDProfile.account(name))
        return "logged out of profile \(TerminalText.escaped(name))" + (try outcome.get().revoked ? "; tokens revoked" : "")
    }

    /// Logs out of the backend of `coffer login`; returns the line to print (printed here unless `quietly`).
    @discardableResult
    private func logOutOfTheBackend(_ profile: AuthProfile, quietly: Bool = false) async throws -> String? {
        let backend: MobileBackend?
        do {
            backend = try profile.backend()
        } catch {
            try profile.removeBackend()
            throw error
        }
        guard let backend else {
            if !quietly { try StandardStreams.printLine("not logged in") }
            return nil
        }
        let auth = profile.authorization(for: backend)
        let outcome: Result<LogoutReport, AuthError>
        do throws(AuthError) { outcome = .success(try await auth.logout()) } catch { outcome = .failure(error) }
        try profile.removeBackend()
        let line = "logged out" + (try outcome.get().revoked ? "; token revoked" : "")
        if !quietly { try StandardStreams.printLine(line) }
        return line
    }
}
