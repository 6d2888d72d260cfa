import Coffer
import Foundation

/// The library's one line, as an app calls it (`Keychain(service:)`, with this process's
/// environment: `$COFFER_AGENT_SOCKET`, `$COFFER_VAULT`, `$HOME`):
///   keychain-get SERVICE ACCOUNT   prints the secret
/// An error is its description on stderr, and exit status 3 for an item not found, 13 for access
/// denied, 69 for no agent, 1 otherwise.
enum KeychainCommands {
    static func run(_ arguments: [String]) -> Int32? {
        guard arguments.first == "keychain-get" else { return nil }
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: keychain-get SERVICE ACCOUNT\n".utf8))
            return 64
        }
        do throws(CofferError) {
            guard let secret = try Keychain(service: arguments[1]).data(for: arguments[2]) else { throw .itemNotFound }
            FileHandle.standardOutput.write(secret)
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            switch error {
            case .itemNotFound: return 3
            case .accessDenied: return 13
            case .agentUnavailable: return 69
            default: return 1
            }
        }
    }
}
