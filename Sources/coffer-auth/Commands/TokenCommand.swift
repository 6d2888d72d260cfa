import ArgumentParser
import CofferAuth
import CofferCommandLine
import Foundation

struct TokenCommand: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.token.configuration(
        discussion: """
            Like `gh auth token`: for scripts, for example curl -H "Authorization: Bearer $(coffer token)". \
            When the agent holds the vault, it holds the login too (if `coffer login` ran with it) and \
            hands out the token (an OpenID login's, or a mobile backend's OAuth login's): it refreshes once for every caller, and the refresh token never leaves \
            it. Otherwise several commands started together make one refresh between them. \
            --json prints token, expiresAt (ISO 8601), profile and scope. --exec-credential prints a \
            kubectl ExecCredential (client.authentication.k8s.io/v1, or the apiVersion kubectl asks \
            for in $KUBERNETES_EXEC_INFO) with the token and its expirationTimestamp. Exit status \
            \(ExitStatus.refreshRefused.rawValue) when the provider refused the refresh token: log in again.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var profile: ProfileOption

    @Flag(help: "Print JSON: token, expiresAt, profile, scope.")
    var json = false

    @Flag(name: .customLong("exec-credential"), help: "Print a kubectl exec credential (ExecCredential) with the token and its expiry.")
    var execCredential = false

    var vaultOptions: VaultOptions? { root.vault }

    func validate() throws {
        guard !(json && execCredential) else { throw ValidationError("--json and --exec-credential exclude each other") }
    }

    func run() async throws {
        let token: AccessToken
        let scope: String?
        if let auth = try root.brokeredBackendLogin(profile: profile.name) {
            token = try await auth.accessToken()
            scope = auth.backend.scope
        } else {
            let client = try root.openIDClient(profile: profile.name).client
            token = try await client.accessToken()
            scope = try await client.scope
        }
        if json {
            try JSONOutput.write(TokenJSON(token: token.value, expiresAt: token.expiresAt, profile: profile.name, scope: scope))
        } else if execCredential {
            try JSONOutput.write(ExecCredential(token: token.value, expiresAt: token.expiresAt))
        } else {
            try StandardStreams.printLine(token.value)
        }
    }

    /// `token --json`.
    struct TokenJSON: Encodable {
        let token: String
        let expiresAt: Date
        let profile: String
        let scope: String?
    }

    /// kubectl's exec credential plugin output (client.authentication.k8s.io): the version
    /// kubectl names in `$KUBERNETES_EXEC_INFO`, else `v1`.
    struct ExecCredential: Encodable {
        struct Status: Encodable {
            let token: String
            let expirationTimestamp: Date
        }

        let apiVersion: String
        let kind = "ExecCredential"
        let status: Status

        init(token: String, expiresAt: Date, environment: [String: String] = ProcessInfo.processInfo.environment) {
            let asked = environment["KUBERNETES_EXEC_INFO"].flatMap { try? JSONDecoder().decode(ExecInfo.self, from: Data($0.utf8)) }?.apiVersion
            apiVersion = asked.flatMap { $0.hasPrefix(Self.group + "/") ? $0 : nil } ?? Self.group + "/v1"
            // RFC 3339 in whole seconds, as kubectl parses it.
            status = Status(token: token, expirationTimestamp: Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down)))
        }

        static let group = "client.authentication.k8s.io"

        private struct ExecInfo: Decodable {
            let apiVersion: String
        }
    }
}
