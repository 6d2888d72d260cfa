import ArgumentParser
import CofferAuth
import Foundation

struct Login: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Log in to a mobile backend; the session persists in the vault.",
        discussion: """
            The password is read from stdin, or from a no-echo prompt on a terminal; never \
            from the command line. With --oauth-token-url, the OAuth 2.0 password grant (the \
            client secret comes from --client-secret-fd); otherwise HTTP Basic, checked against \
            the backend. The user name, password and token are stored in the vault, so later \
            commands need no password.
            """)

    @ParentCommand var root: CofferCommand
    @OptionGroup var backend: MobileBackendOptions

    @Option(help: ArgumentHelp("The user name.", valueName: "name"))
    var user: String

    var cofferRoot: CofferCommand { root }
    var ownDescriptors: [Int32] { [backend.clientSecretFD].compactMap { $0 } }

    func run() async throws {
        let mobileBackend = try backend.mobileBackend(network: root.network)
        let password = try SecretInput.fromStdin(prompt: "Password for \(user): ", what: "password")
        let profile = AuthProfile(store: try root.store(), network: root.network)
        let auth = profile.authorization(for: mobileBackend)
        try await auth.authenticate(userName: user, password: password)
        try profile.save(mobileBackend)
        try StandardStreams.printLine("logged in as \(TerminalText.escaped(user))" + SessionText.expiry(await auth.tokenExpiresAt))
    }
}
