import ArgumentParser
import Coffer
import FoundationEssentials

/// `coffer token`'s options and output, one definition for the two programs that answer it:
/// `coffer` itself when the agent holds the login, `coffer-auth` otherwise.
package struct TokenOptions: ParsableArguments {
    @OptionGroup package var profile: ProfileOption

    @Flag(help: "Print JSON: token, expiresAt, profile, scope.")
    package var json = false

    @Flag(name: .customLong("exec-credential"), help: "Print a kubectl exec credential (ExecCredential) with the token and its expiry.")
    package var execCredential = false

    package init() {}

    package func validate() throws {
        guard !(json && execCredential) else { throw ValidationError("--json and --exec-credential exclude each other") }
    }

    /// These options as a command line, for the program the command is handed on to.
    package var arguments: [String] {
        (profile.profile.map { ["--profile", $0] } ?? []) + (json ? ["--json"] : []) + (execCredential ? ["--exec-credential"] : [])
    }

    /// Prints `token`, valid until `expiresAt`, as these options ask.
    package func write(token: String, expiresAt: Date, scope: String?) throws {
        if json {
            try JSONOutput.write(TokenJSON(token: token, expiresAt: expiresAt, profile: profile.name, scope: scope))
        } else if execCredential {
            try JSONOutput.write(ExecCredential(token: token, expiresAt: expiresAt))
        } else {
            try StandardStreams.printLine(token)
        }
    }

    /// `coffer token`'s help.
    package static let configuration = ForwardedCommands.token.configuration(
        discussion: """
            Like `gh auth token`: for scripts, for example curl -H "Authorization: Bearer $(coffer token)". \
            When the agent holds the vault, it holds the login too (if `coffer login` ran with it) and \
            hands out the token (an OpenID login's, or a mobile backend's OAuth login's): it refreshes \
            once for every caller, and the refresh token never leaves \
            it; in a sandbox or on another host, a share of the profile (`coffer agent share --profile`) \
            reached with COFFER_AGENT_SOCKET serves it the same way. Otherwise several commands started \
            together make one refresh between them. \
            --json prints token, expiresAt (ISO 8601), profile and scope. --exec-credential prints a \
            kubectl ExecCredential (client.authentication.k8s.io/v1, or the apiVersion kubectl asks \
            for in $KUBERNETES_EXEC_INFO) with the token and its expirationTimestamp. Exit status \
            \(ExitStatus.refreshRefused.rawValue) when the provider refused the refresh token: log in again.
            """)

    /// `token --json`.
    struct TokenJSON: Encodable {
        let token: String
        let expiresAt: Date
        let profile: String
        let scope: String?
    }
}
