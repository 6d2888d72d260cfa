import ArgumentParser
import CofferAuth
import CofferCommandLine

struct Status: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.status.configuration(
        discussion: """
            With --profile, or when no mobile-backend login is stored, the OpenID login of that \
            profile (default: default). --json prints issuer, subject, user, expiresAt (ISO 8601), \
            refreshTokenHeld, isAuthorized, needsRefresh, needsLogin, profile and apiOrigins; never \
            a token. For a mobile backend, --json prints isAuthorized, isRenewable, needsRefresh, \
            needsLogin, isBackendMismatch, method, userName, tokenExpiresAt and backend. Exit \
            status 0 while the stored login can authorize a request without the user: its token \
            is valid (isAuthorized), or it has expired and the next command renews it \
            (needsRefresh: a refresh token, or stored credentials, held; the provider may still \
            refuse it, then that command exits \(ExitStatus.refreshRefused.rawValue)). Exit status \
            \(ExitStatus.loginNeeded.rawValue) when a new login is needed (needsLogin), like `gh auth status`.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var profile: ProfileOption

    @Flag(help: "Print the status as JSON.")
    var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        let settings = AuthProfile(store: try root.store(), network: root.network)
        let brokered = try settings.brokeredProfile()
        if let name = profile.profile, name != brokered { return try await showOpenID() }
        if profile.profile == nil, try root.defaultsToOpenID() { return try await showOpenID() }
        var status = SessionStatus()
        if let backend = try settings.backend() {
            let auth = try settings.storedAuthorization(for: backend)
            if auth.isBrokered {
                // The agent holds the login: what it says of it comes with a token (renewed if needed).
                do { _ = try await auth.accessToken() } catch .notAuthenticated, .reauthenticationRequired {}
            } else {
                try await auth.loadStoredSession()
            }
            status = await auth.status
        }
        if json {
            try JSONOutput.write(SessionText.JSON(status: status))
        } else {
            try StandardStreams.printLine(SessionText.describe(status))
        }
        // Not an error: the output above says why.
        if status.needsLogin { throw ExitCode(.loginNeeded) }
    }

    private func showOpenID() async throws {
        let client = try root.openIDClient(profile: profile.name).client
        if client.isBrokered {
            // The agent holds the login: what it says of it comes with a token (refreshed if needed).
            do { _ = try await client.accessToken() } catch .notAuthenticated, .reauthenticationRequired {}
        }
        let status = try await client.status
        if json {
            try JSONOutput.write(OpenIDStatusText.JSON(status, profile: profile.name))
        } else {
            try StandardStreams.printLine(OpenIDStatusText.describe(status))
        }
        if status.needsLogin { throw ExitCode(.loginNeeded) }
    }
}
