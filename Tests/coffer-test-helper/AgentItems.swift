import Coffer
import Foundation

/// Item requests to the agent, as a program other than `coffer` makes them (the access tests run
/// this helper, and copies of it at other paths, as different programs):
///   agent-set SOCKET VAULT SERVICE ACCOUNT     the secret is stdin; prints "stored"
///   agent-get SOCKET VAULT SERVICE ACCOUNT     prints the secret
///   agent-list SOCKET VAULT                    prints each item's account, one a line
///   agent-delete SOCKET VAULT SERVICE ACCOUNT  prints how many items were removed
///   agent-delete-all SOCKET VAULT SERVICE      prints how many items were removed
///   owner VAULT SERVICE ACCOUNT                opens VAULT with $COFFER_PASSPHRASE, prints the item's owner's executable
/// An error is its description on stderr, and exit status 13 for access denied, 3 for an item
/// not found, 1 otherwise.
enum AgentItems {
    static func run(_ arguments: [String]) -> Int32? {
        guard let command = arguments.first, command.hasPrefix("agent-") || command == "owner" else { return nil }
        do {
            if command == "owner" {
                guard arguments.count == 4, let passphrase = ProcessInfo.processInfo.environment["COFFER_PASSPHRASE"] else { return 1 }
                let vault = try Vault.open(at: URL(fileURLWithPath: arguments[1]), unlock: .passphrase(passphrase))
                let owner = try vault.access(for: .genericPassword(service: arguments[2], account: arguments[3]))?.owner
                print(owner.map { String(decoding: $0.executablePath, as: UTF8.self) } ?? "none")
                return 0
            }
            guard arguments.count >= 3, let store = try AgentClient(path: arguments[1], timeout: .seconds(150)).store(for: arguments[2]) else {
                FileHandle.standardError.write(Data("the agent does not hold the vault\n".utf8))
                return 1
            }
            let rest = Array(arguments.dropFirst(3))
            func id() -> ItemID { .genericPassword(service: rest[0], account: rest[1]) }
            switch (command, rest.count) {
            case ("agent-set", 2):
                try store.set(FileHandle.standardInput.readDataToEndOfFile(), for: id(), options: ItemOptions())
                print("stored")
            case ("agent-get", 2):
                guard let secret = try store.secret(for: id()) else { throw CofferError.itemNotFound }
                FileHandle.standardOutput.write(secret)
            case ("agent-list", 0):
                for item in try store.items(matching: ItemQuery()) { print(item.id.account) }
            case ("agent-delete", 2):
                print(try store.remove(id()) ? 1 : 0)
            case ("agent-delete-all", 1):
                print(try store.removeAll(matching: ItemQuery(service: rest[0])))
            default:
                return nil
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            switch error as? CofferError {
            case .accessDenied?: return 13
            case .itemNotFound?: return 3
            default: return 1
            }
        }
    }
}
