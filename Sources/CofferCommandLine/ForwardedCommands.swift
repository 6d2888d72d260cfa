import ArgumentParser

/// The executables beside `coffer` that run some of its commands, so that `coffer` itself links
/// no networking.
package enum ForwardedExecutable: String, Sendable, CaseIterable {
    case auth = "coffer-auth"
    case devBackend = "coffer-dev-backend"
}

/// A `coffer` command that another executable runs.
package struct ForwardedCommand: Sendable, Hashable {
    package let name: String
    package let executable: ForwardedExecutable
    package let abstract: String
    /// Whether `coffer` answers the command itself when the agent can, and hands it on only
    /// otherwise (`token`: a login the agent holds needs no networking in this process).
    package var answeredByCofferFirst = false

    /// The configuration of the command, as the executable that runs it declares it.
    package func configuration(discussion: String = "") -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract, discussion: discussion)
    }
}

/// The one table of forwarded commands: `coffer`'s stubs (which list them in `coffer --help`
/// and its completions) and the executables' own commands both take their name and abstract
/// from it, and `coffer` hands a command line to the executable it names (``ForwardedInvocation``).
package enum ForwardedCommands {
    package static let login = ForwardedCommand(
        name: "login", executable: .auth,
        abstract: "Log in to an OpenID provider (--issuer) or a mobile backend (--backend-url); the login persists in the store.")
    package static let token = ForwardedCommand(
        name: "token", executable: .auth, abstract: "Print a valid access token of an OpenID login, refreshing it first when needed.",
        answeredByCofferFirst: true)
    package static let status = ForwardedCommand(
        name: "status", executable: .auth,
        abstract: "Show a stored login, without the network: an OpenID profile, or the mobile backend's session.")
    package static let logout = ForwardedCommand(
        name: "logout", executable: .auth, abstract: "Log out: remove the session from the vault, then revoke the token.")
    package static let ssoExchange = ForwardedCommand(
        name: "sso-exchange", executable: .auth, abstract: "Exchange a third-party token (read from stdin) for a backend token.")
    package static let request = ForwardedCommand(
        name: "request", executable: .auth,
        abstract: "GET a protected URL and print the body: with the stored login, or answering MobileFirst or MCA challenges.")
    package static let devBackend = ForwardedCommand(
        name: "dev-backend", executable: .devBackend, abstract: "Run the development backend on 127.0.0.1 until interrupted (coffer-dev-backend).")

    package static let all = [login, token, status, logout, ssoExchange, request, devBackend]

    /// The forwarded command called `name`.
    package static func named(_ name: String) -> ForwardedCommand? {
        all.first { $0.name == name }
    }
}
