import ArgumentParser
import CofferAuth
import Foundation

struct Request: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "GET a URL of the backend, authorized by the stored session, and print the body.",
        discussion: """
            A URL starting with / is taken relative to the backend's base URL. An expired \
            token is renewed first when the vault holds the credentials. Exit status 5 when the \
            backend answers with an HTTP error (the body is still printed).
            """)

    @ParentCommand var root: CofferCommand

    @Argument(help: ArgumentHelp("The URL, or a path below the backend's base URL.", valueName: "url"))
    var url: String

    func run() async throws {
        let profile = AuthProfile(store: try root.store())
        let backend = try profile.requireBackend()
        let target = url.hasPrefix("/")
            ? try MobileBackendOptions.parse(backend.baseURL.absoluteString.trimmingSuffix("/") + url)
            : try MobileBackendOptions.parse(url)
        let response = try await profile.authorization(for: backend).get(target)
        FileHandle.standardOutput.write(response.body)
        if !response.body.isEmpty, response.body.last != UInt8(ascii: "\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
        guard response.isSuccess else { throw CLIError(message: "HTTP \(response.status)", exitStatus: 5) }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
