import ArgumentParser
import Coffer
import CofferAuth
import CofferBase
import CofferCommandLine
import Foundation

struct Login: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.login.configuration(
        discussion: """
            OPENID PROVIDERS (Keycloak, Okta, Entra ID, Google, …)
            coffer login --issuer URL --client-id ID [--client-secret-fd N] [--scope S] \
            [--browser | --device] [--no-open] [--redirect-uri URI] [--timeout SECONDS] [--api ORIGIN]... \
            [--profile NAME]
            With --browser (the default when $DISPLAY or $WAYLAND_DISPLAY is set): authorization \
            code with PKCE; the browser opens on the provider's login page and comes back to \
            http://127.0.0.1:PORT/callback at a random port, or to --redirect-uri for a provider \
            that matches redirect URIs exactly. The browser ($BROWSER, else xdg-open) is given a \
            page only you can read that leads to the login, never the URL itself. The authorization \
            URL is printed on stderr, alone on its line (with --no-open, or without a display, open \
            it yourself). With --device: these \
            lines go to stderr, then the login waits for approval:
              verification URI: <uri>
              user code: <code>
              verification URI complete: <uri>
            The refresh token and access token are stored, never a password; `coffer token` prints a \
            valid access token. --api names the origins the token may be sent to (default: the \
            issuer's). Prints "logged in as <name> (<issuer>)".

            MOBILE BACKENDS (Oracle Mobile Hub)
            coffer login --backend-url URL --backend-id ID --user NAME [--oauth-token-url URL \
            --client-id ID --client-secret-fd N]
            The password is read from stdin, or from a no-echo prompt on a terminal; never from the \
            command line. With --oauth-token-url, the OAuth 2.0 password grant: the token and the \
            refresh token are stored, not the password. Otherwise HTTP Basic, checked against the \
            backend, and the user name and password are stored (every request carries them). When \
            the agent holds the vault, an OAuth login goes to the agent, as --profile (default: \
            default): it refreshes the token and the refresh token never leaves it; `coffer token \
            --profile NAME`, `coffer status` and `coffer logout` ask it.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var backend: MobileBackendOptions
    @OptionGroup var openID: OpenIDLoginOptions

    @Option(help: ArgumentHelp("The user name (mobile backends).", valueName: "name"))
    var user: String?

    var vaultOptions: VaultOptions? { root.vault }
    var ownDescriptors: [Int32] { [backend.clientSecretFD].compactMap { $0 } }

    func run() async throws {
        if let issuer = openID.issuer { return try await logInToOpenIDProvider(issuer) }
        guard let user else { throw CLIError.usage("give --issuer for an OpenID provider, or --backend-url and --user for a mobile backend") }
        let mobileBackend = try backend.mobileBackend(network: root.network)
        let password = try SecretInput.fromStdin(prompt: "Password for \(user): ", what: "password")
        let store = try root.store()
        let profile = AuthProfile(store: store, network: root.network)
        // With the agent holding the vault, an OAuth login goes to its token broker, as profile --profile.
        var brokered: String?
        if case .oauth = mobileBackend.authentication, CofferAuthCommand.agent(behind: store) != nil { brokered = openID.profile.name }
        let auth = profile.authorization(for: mobileBackend, brokeredAs: brokered)
        try await auth.authenticate(userName: user, password: password)
        try profile.save(mobileBackend)
        try profile.saveBrokeredProfile(brokered)
        if let brokered {
            // The agent's profile is this login now; the session this store kept before goes.
            try profile.keychain.remove(OpenIDProfile.account(brokered))
            try profile.keychain.remove("session")
        }
        try StandardStreams.printLine("logged in as \(TerminalText.escaped(user))" + SessionText.expiry(await auth.tokenExpiresAt))
    }

    private func logInToOpenIDProvider(_ issuerText: String) async throws {
        guard let clientID = backend.clientID else { throw CLIError.usage("--issuer needs --client-id") }
        let redirectURI = try openID.loopbackRedirectURI()
        let issuer = try MobileBackendOptions.parse(issuerText)
        try root.network.check(issuer)
        let secret = try backend.clientSecretFD.map { try DescriptorInput.text($0, what: "client secret") }
        let provider = try await openID.provider(revocationURL: backend.revocationURL, network: root.network, issuer: issuer)
        let store = try root.store()
        let settings = OpenIDProfile(provider: provider, clientID: clientID, clientSecret: secret)
        let name = openID.profile.name
        let client = settings.client(
            profile: name, store: store, network: root.network, loginTimeout: openID.timeout.map { .seconds($0) },
            redirectURI: redirectURI)
        let apiOrigins = try openID.apiOriginURLs(network: root.network)
        let identity: AuthenticatedUser
        if openID.usesBrowser {
            OpenFileLimit.raiseToHardLimit()  // other local users can connect to the listener
            let login = try await client.startBrowserLogin(scope: openID.scope, apiOrigins: apiOrigins)
            StandardStreams.writeError(login.url.absoluteString + "\n")
            if openID.opensBrowser {
                do { try await login.open(with: .defaultBrowser) } catch {
                    Terminal.printError("warning: the browser did not open (\(error)); open the URL above")
                }
            }
            identity = try await login.complete()
        } else {
            let login = try await client.startDeviceLogin(scope: openID.scope, apiOrigins: apiOrigins)
            let codes = login.authorization
            var lines = ["verification URI: \(TerminalText.escaped(codes.verificationURI.absoluteString))", "user code: \(TerminalText.escaped(codes.userCode))"]
            if let complete = codes.verificationURIComplete {
                lines.append("verification URI complete: \(TerminalText.escaped(complete.absoluteString))")
            }
            StandardStreams.writeError(lines.map { $0 + "\n" }.joined())
            identity = try await login.complete()
        }
        let profile = AuthProfile(store: store, network: root.network)
        try settings.save(as: name, in: profile.keychain)
        if try profile.brokeredProfile() == name {
            // The agent's profile is this login now, no longer the mobile backend's.
            try profile.saveBrokeredProfile(nil)
            try profile.removeBackend()
        }
        try StandardStreams.printLine("logged in as \(TerminalText.escaped(identity.displayName)) (\(TerminalText.escaped(issuer.absoluteString)))")
    }
}
