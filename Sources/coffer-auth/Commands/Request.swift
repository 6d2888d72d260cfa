import ArgumentParser
import AsyncHTTPClient
import CofferAuth
import CofferCommandLine
import Foundation

struct Request: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.request.configuration(
        discussion: """
            Without --mobilefirst or --mca-tenant, the request is authorized by the session of \
            `coffer login`: a URL starting with / is taken relative to the backend's base URL, and \
            an expired token is renewed first when the vault holds the credentials.

            MOBILEFIRST AND MOBILE CLIENT ACCESS
            With --mobilefirst, URL is a resource of a MobileFirst 8 server: the server is the \
            URL's origin, its runtime --runtime. With --mca-tenant ID, URL is a resource of a \
            Mobile Client Access app: the route is the URL's origin, the authorization server \
            --mca-auth-url (default <origin>/imf-authserver). The client's registration and \
            tokens are kept in the vault (service coffer.auth, one item per server), so a later \
            run is the same client: while its token is valid, or the server remembers it \
            (remember-me), it is not challenged.

            Challenges are answered from --answers-json-fd N: a JSON object mapping a security \
            check or realm to a list of answers, used in order, for example \
            {"PinCodeAttempts": [{"pin": "0000"}, {"pin": "1234"}]}; when a list runs out, the \
            challenge is cancelled. Without it, on a terminal, coffer asks, showing the server's \
            message and the attempts left (PINs and passwords are not echoed; an empty answer \
            cancels): PinCodeAttempts asks for a PIN, UserLogin for a user name, password and \
            remember-me, the MCA realm (--mca-realm) for a user name and password; other \
            security checks are answered only from --answers-json-fd. Otherwise every challenge \
            is cancelled.
            """ + "\n\n" + ExitStatus.helpBlock([.ok, .loginNeeded, .httpError, .challengeFailed, .blocked, .challengeCancelled, .timedOut]))

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var challenges: ChallengeServerOptions
    @OptionGroup var profile: ProfileOption

    @Argument(help: ArgumentHelp("The URL, or (with the stored login) a path below the backend's base URL.", valueName: "url"))
    var url: String

    var vaultOptions: VaultOptions? { root.vault }
    var ownDescriptors: [Int32] { [challenges.answersFD].compactMap { $0 } }

    func run() async throws {
        if !url.hasPrefix("/") { try root.network.check(try MobileBackendOptions.parse(url)) }
        let response: HTTPReply
        if !challenges.isGiven, try profile.profile != nil || root.defaultsToOpenID() {
            guard !url.hasPrefix("/") else { throw CLIError.usage("with an OpenID login, give the resource's whole URL") }
            response = try await root.openIDClient(profile: profile.name).client.send(HTTPClientRequest(url: url))
            return try print(response)
        }
        let profile = AuthProfile(store: try root.store(), network: root.network)
        if challenges.isGiven {
            let target = try MobileBackendOptions.parse(url)
            let client = try challenges.client(of: try challenges.server(for: target), profile: profile)
            response = try await ResourceRequest(url: target).send(using: client)
        } else {
            let backend = try profile.requireBackend()
            let target = url.hasPrefix("/")
                ? try MobileBackendOptions.parse(backend.baseURL.absoluteString.trimmingSuffix("/") + url)
                : try MobileBackendOptions.parse(url)
            response = try await profile.storedAuthorization(for: backend).get(target)
        }
        try print(response)
    }

    /// Prints the body (with a final newline) and fails with ``ExitStatus/httpError`` for an HTTP error.
    private func print(_ response: HTTPReply) throws {
        try StandardStreams.write(response.body)
        if !response.body.isEmpty, response.body.last != UInt8(ascii: "\n") { try StandardStreams.write(Array("\n".utf8)) }
        guard response.isSuccess else { throw CLIError(message: "HTTP \(response.status)", exitStatus: .httpError) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
