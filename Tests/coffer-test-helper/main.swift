import Coffer
import Foundation

// A second process for the vault tests. Commands:
//   write-loop VAULT KEYFILE PREFIX COUNT   set PREFIX-0 ... PREFIX-(COUNT-1), then print "done"
//   write-then-wait VAULT KEYFILE ACCOUNT   set ACCOUNT, print "written", then wait to be killed
//   open-or-create VAULT KEYFILE            open the vault, creating it if missing; print its id
//   open-loop VAULT KEYFILE PREFIX COUNT    COUNT times: open the vault, read, write PREFIX, close; then print "done"
//   audit-then-wait VAULT KEYFILE           append an audit entry, print "appended", then wait to be killed
//   audit-loop VAULT KEYFILE PREFIX COUNT   COUNT times: set PREFIX-i, print "set i", append an entry, print "audited i"
//   audit-dump VAULT KEYFILE                print the account of every audit entry's item, newest first
//   make-fixture FOLDER                     write FOLDER/v1.vault and FOLDER/v1.key (see VaultFixtureTests)
//   peer SOCKET, ping SOCKET, ping-reply SOCKET   a peer on a Unix socket (AgentPeer)
//   resolve PID                             the program an agent of this user finds PID to be (ResolveCaller)
//   make-fixture-v2 FOLDER                  write FOLDER/v2.vault (see VaultFixtureV2Tests)
//   agent-set|agent-get|agent-list|agent-delete|agent-delete-all SOCKET VAULT ..., owner VAULT SERVICE ACCOUNT
//                                           items through the agent, as a program of its own (AgentItems)
//   keychain-get SERVICE ACCOUNT            Keychain(service:), the login keychain as an app reads it (KeychainCommands)
//   agent-tokens SOCKET VAULT PROFILE COUNT token requests to the agent's broker, at once (AgentTokens)
//   agent-keep-login SOCKET VAULT PROFILE   a login from stdin handed to the agent's broker (AgentTokens)
//   shared-lock-holder FILE                 the PID holding SQLite's shared lock on FILE, or "none" (SharedLockHolder)
let arguments = CommandLine.arguments.dropFirst().map { $0 }
if let status = AgentPeer.run(arguments) ?? ResolveCaller.run(arguments) ?? AgentTokens.run(arguments) ?? AgentItems.run(arguments)
    ?? KeychainCommands.run(arguments) ?? SharedLockHolder.run(arguments)
{
    exit(status)
}
if let command = arguments.first, ["make-fixture", "make-fixture-v2"].contains(command), arguments.count == 2 {
    do {
        let folder = URL(fileURLWithPath: arguments[1])
        if command == "make-fixture" { try Fixture.make(in: folder) } else { try FixtureV2.make(in: folder) }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("coffer-test-helper: \(error)\n".utf8))
        exit(1)
    }
}
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("coffer-test-helper: \(message)\n".utf8))
    exit(1)
}
guard arguments.count >= 3 else { fail("usage: write-loop|write-then-wait|open-or-create VAULT KEYFILE ...") }
let service = "com.example.multiprocess"

do {
    let vaultURL = URL(fileURLWithPath: arguments[1]), credential = VaultCredential.keyFile(URL(fileURLWithPath: arguments[2]))
    if arguments[0] == "open-or-create" {
        print(try Vault.openOrCreate(at: vaultURL, unlock: credential).id)
        exit(0)
    }
    if arguments[0] == "open-loop" {
        guard arguments.count == 5, let count = Int(arguments[4]) else { fail("open-loop VAULT KEYFILE PREFIX COUNT") }
        for index in 0..<count {
            // Each vault closes at the end of the iteration: the last process out checkpoints and
            // removes the -wal and -shm while the others open theirs.
            let vault = try Vault.open(at: vaultURL, unlock: credential)
            _ = try vault.secret(for: .genericPassword(service: service, account: "shared"))
            try vault.set(Data("\(index)".utf8), for: .genericPassword(service: service, account: arguments[3]))
        }
        print("done")
        exit(0)
    }
    let vault = try Vault.open(at: vaultURL, unlock: credential)
    switch arguments[0] {
    case "write-loop":
        guard arguments.count == 5, let count = Int(arguments[4]) else { fail("write-loop VAULT KEYFILE PREFIX COUNT") }
        for index in 0..<count {
            try vault.set(Data("\(arguments[3])-secret-\(index)".utf8), for: .genericPassword(service: service, account: "\(arguments[3])-\(index)"))
        }
        print("done")
    case "write-then-wait":
        try vault.set(Data("durable".utf8), for: .genericPassword(service: service, account: arguments[3]))
        print("written")
        fflush(nil)
        while true { sleep(60) }
    case "audit-then-wait":
        try AuditCommands.appendThenWait(vault)
    case "audit-loop":
        guard arguments.count == 5, let count = Int(arguments[4]) else { fail("audit-loop VAULT KEYFILE PREFIX COUNT") }
        try AuditCommands.loop(vault, prefix: arguments[3], count: count)
    case "audit-dump":
        try AuditCommands.dump(vault)
    default:
        fail("unknown command \(arguments[0])")
    }
} catch {
    fail("\(error)")
}
