import ArgumentParser
import CofferAuth
import Foundation

struct Status: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Show the login session stored in the vault, without the network.",
        discussion: "Exit status 0 when a request can be authorized now, 4 otherwise.")

    @ParentCommand var root: CofferCommand

    @Flag(help: "Print the status as JSON.")
    var json = false

    var cofferRoot: CofferCommand { root }

    func run() async throws {
        let profile = AuthProfile(store: try root.store(), network: root.network)
        var status = SessionStatus()
        if let backend = try profile.backend() {
            let auth = profile.authorization(for: backend)
            try await auth.loadStoredSession()
            status = await auth.status
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            try StandardStreams.write(try encoder.encode(status) + Data("\n".utf8))
        } else {
            try StandardStreams.printLine(SessionText.describe(status))
        }
        // Not an error: the line above says why. exit() flushes stdout.
        if !status.isAuthorized { Foundation.exit(4) }
    }
}
