import Coffer
import Foundation

/// The audit-log commands, for VaultAuditLogTests and the torture campaign's kill-audit.
enum AuditCommands {
    static let service = "com.example.audit"

    static func entry(account: String) -> AuditEntry {
        AuditEntry(
            time: Date(), program: Program.current(), frontDoor: .agent, action: .read,
            item: .genericPassword(service: service, account: account), decision: .owner)
    }

    /// `audit-then-wait`: appends one entry, says "appended", and waits to be killed.
    static func appendThenWait(_ vault: Vault) throws -> Never {
        try vault.appendAudit(entry(account: "survivor"))
        say("appended")
        while true { sleep(60) }
    }

    /// `audit-loop`: `count` times, sets the item PREFIX-i (secret "PREFIX-i-secret") and says
    /// "set i", then appends an entry naming it and says "audited i"; each after its commit.
    static func loop(_ vault: Vault, prefix: String, count: Int) throws {
        for index in 0..<count {
            let account = "\(prefix)-\(index)"
            try vault.set(Data("\(account)-secret".utf8), for: .genericPassword(service: service, account: account))
            say("set \(index)")
            try vault.appendAudit(entry(account: account))
            say("audited \(index)")
        }
    }

    /// `audit-dump`: the account of each entry's item, newest first, one a line.
    static func dump(_ vault: Vault) throws {
        for entry in try vault.auditLog() { say(entry.item?.account ?? "-") }
    }

    private static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
