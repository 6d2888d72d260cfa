import ArgumentParser
import CofferAuth
import CofferCommandLine

struct Status: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.status.configuration(
        discussion: """
            With --profile, or when no mobile-backend login is stored, the OpenID login of that \
            profile (default: default). --json prints issuer, subject, user, expiresAt (ISO 8601), \
            refreshTokenHeld, isAuthorized, profile and apiOrigins; never a token. \
            Exit status 0 when a request can be authorized now, \(ExitStatus.loginNeeded.rawValue) otherwise.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var profile: ProfileOption

    @Flag(help: "Print the status as JSON.")
    var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        if try profile.profile != nil || root.defaultsToOpenID() { return try await showOpenID() }
        let profile = AuthProfile(store: try root.store(), network: root.network)
        var status = SessionStatus()
        if let backend = try profile.backend() {
            let auth = profile.authorization(for: backend)
            try await auth.loadStoredSession()
            status = await auth.status
        }
        if json {
            try JSONOutput.write(status)
        } else {
            try StandardStreams.printLine(SessionText.describe(status))
        }
        // Not an error: the output above says why.
        if !status.isAuthorized { throw ExitCode(.loginNeeded) }
    }

    private func showOpenID() async throws {
        let status = try await root.openIDClient(profile: profile.name).client.status
        if json {
            try JSONOutput.write(OpenIDStatusText.JSON(status, profile: profile.name))
        } else {
            try StandardStreams.printLine(OpenIDStatusText.describe(status))
        }
        if !status.isAuthorized { throw ExitCode(.loginNeeded) }
    }
}
