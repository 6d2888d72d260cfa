import Coffer
import CofferAgent
import CofferAgentWire
import Foundation

/// The binary seeds, made by the store's own encoder so they stay valid as the format is:
/// `coffer-fuzz --seed Fuzz/Corpus` rewrites the `item-record/`, `program/`, `audit-entry/`,
/// `slot-row/`, `agent-request/` and `agent-reply/` files named `gen-*`.
enum Seeds {
    static func write(to root: String) throws {
        for (name, bytes) in itemRecords() { try save(bytes, "\(root)/item-record/gen-\(name)") }
        for (name, entry) in auditEntries() { try save(entry.encoded, "\(root)/audit-entry/gen-\(name)") }
        for (name, columns) in slotRows() { try save(columns.bytes, "\(root)/slot-row/gen-\(name)") }
        for (name, message) in agentRequests() { try save(Array(message.frame.dropFirst(4)), "\(root)/agent-request/gen-\(name)") }
        for (name, message) in agentReplies() { try save(Array(message.frame.dropFirst(4)), "\(root)/agent-reply/gen-\(name)") }
        for (name, bytes) in programs() { try save(bytes, "\(root)/program/gen-\(name)") }
    }

    private static func save(_ bytes: [UInt8], _ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func itemRecords() -> [(String, [UInt8])] {
        let created = Date(timeIntervalSince1970: 1_700_000_000), modified = Date(timeIntervalSince1970: 1_700_000_123.456)
        let minimal = ItemAttributes(id: .genericPassword(service: "example.com", account: "alice"), created: created, modified: modified)
        let full = ItemAttributes(
            id: .genericPassword(service: "Café ☕ service", account: "bob@example.com"), label: "Work mail", comment: "rotated\nyearly",
            custom: ["env": "prod", "owner": "ops", "Ünïcode": "välue"], created: created, modified: modified,
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        let internet = ItemAttributes(
            id: .internetPassword(server: "mail.example.com", account: "carol"), created: created, modified: modified,
            internet: InternetAttributes(protocol: "imaps", port: 993, path: "/inbox", authenticationType: "plain"))
        let encoded = ItemRecord.encode(minimal, secret: Data("hunter2".utf8))
        return [
            ("minimal", encoded),
            ("full", ItemRecord.encode(full, secret: Data((0...255).map { UInt8($0) }))),
            ("internet", ItemRecord.encode(internet, secret: Data("s3cret".utf8))),
            ("empty-secret", ItemRecord.encode(minimal, secret: Data())),
            ("owned", ItemRecord.encode(minimal, secret: Data("s".utf8), access: ItemAccess(owner: owners()[0]))),
            ("access-list", ItemRecord.encode(internet, secret: Data("s".utf8), access: ItemAccess(owner: owners()[1], allowed: owners()))),
            ("truncated", Array(encoded.dropLast())),
            ("unknown-class", [0xFF] + encoded.dropFirst()),
        ]
    }

    /// Programs as owners and access lists name them (docs/vault-format.md, 5.5).
    private static func owners() -> [Program] {
        let digest = [UInt8](repeating: 0x5A, count: Program.digestLength)
        return [
            try! Program(executablePath: Array("/usr/bin/git".utf8)),
            try! Program(executablePath: Array("/home/ada/bin/tool".utf8), executableDigest: digest, executablePinned: true),
            try! Program(
                executablePath: Array("/usr/bin/python3.11".utf8), executableDigest: digest, script: Array("/home/ada/sync.py".utf8),
                scriptDigest: digest, scriptPinned: true),
            try! Program(executablePath: Array("/app/bin/app".utf8), sandboxApp: "flatpak:org.example.App", systemdUnit: "app.service"),
        ]
    }

    /// Audit entries (docs/vault-format.md, 8.2).
    private static func auditEntries() -> [(String, AuditEntry)] {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        return [
            ("read", AuditEntry(time: time, program: owners()[2], frontDoor: .secretService, action: .read,
                                item: .genericPassword(service: "mail", account: "ada"), decision: .allowed)),
            ("list", AuditEntry(time: time, program: nil, frontDoor: .agent, action: .list, decision: .open)),
            ("denied", AuditEntry(time: time, program: owners()[0], frontDoor: .credentialHelper, action: .read,
                                  item: .attributeItem(identifier: "0123456789abcdef0123456789abcdef"), decision: .noPrompter)),
        ]
    }

    /// One request of each kind (docs/agent.md, section 3).
    private static func agentRequests() -> [(String, AgentMessage)] {
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        var query = ItemQuery(service: "mail")
        query.custom["team"] = "ops"
        let attributes = ItemAttributes(id: id, created: Date(timeIntervalSince1970: 1_700_000_000), modified: Date(timeIntervalSince1970: 1_700_000_000))
        return [
            ("ping", AgentRequest.ping.message), ("status", AgentRequest.status.message), ("stop", AgentRequest.stop.message),
            ("identify", AgentRequest.identify.message),
            ("unlock-keyfile", AgentRequest.unlock(vault: "/home/u/v.vault", credential: .keyFile("/home/u/v.key"), lifetime: 3600).message),
            ("unlock-passphrase", AgentRequest.unlock(vault: "/v", credential: .passphrase(SecureBytes(copying: Array("pw".utf8))), lifetime: 60).message),
            ("lock", AgentRequest.lock(vault: "/v").message), ("lock-all", AgentRequest.lock(vault: nil).message),
            ("holds", AgentRequest.holds(vault: "/v").message),
            ("set", AgentRequest.set(vault: "/v", id: id, secret: Data("s3cret".utf8), options: attributes.options).message),
            ("item", AgentRequest.item(vault: "/v", id: id).message), ("secret", AgentRequest.secret(vault: "/v", id: id).message),
            ("remove", AgentRequest.remove(vault: "/v", id: id).message),
            ("items", AgentRequest.items(vault: "/v", query: query).message),
            ("items-after", AgentRequest.items(vault: "/v", query: query, after: id).message),
            ("remove-all", AgentRequest.removeAll(vault: "/v", query: query).message),
            ("share-service", AgentRequest.share(vault: "/v", socket: "/run/s.sock", grant: ShareGrant(
                scope: .service(itemClass: .internetPassword, service: "registry.example", account: "robot"), readWrite: true), lifetime: 3600,
                credential: .passphrase(SecureBytes(copying: Array("pw".utf8)))).message),
            ("share-program", AgentRequest.share(vault: "/v", socket: "/run/s.sock", grant: ShareGrant(
                scope: .program(owners()[0]), readWrite: false), lifetime: 60, credential: .keyFile("/home/u/v.key")).message),
            ("share-profile", AgentRequest.share(vault: "/v", socket: "/run/s.sock", grant: ShareGrant(scope: .profile("work.1"), readWrite: false), lifetime: 86_400, credential: nil).message),
            ("unshare", AgentRequest.unshare(socket: "/run/s.sock").message),
            ("token", AgentRequest.token(vault: "/v", profile: "default", refused: nil).message),
            ("token-refused", AgentRequest.token(vault: "/v", profile: "work.1", refused: "old-access-token").message),
            ("keep-login", AgentRequest.keepLogin(vault: "/v", profile: "default", login: SecureBytes(copying: Array(#"{"session":{}}"#.utf8))).message),
            ("end-login", AgentRequest.endLogin(vault: "/v", profile: "default").message),
            ("helper-get-git", AgentRequest.helperGet(vault: "/v", helper: .git, input: SecureBytes(copying: Array("protocol=https\nhost=example.com\n\n".utf8))).message),
            ("helper-get-docker", AgentRequest.helperGet(vault: "/v", helper: .docker, input: SecureBytes(copying: Array("https://registry.example".utf8))).message),
            ("set-plain", AgentMessage(kind: AgentRequestKind.set.rawValue, fields: [
                .init(AgentRequestTag.vault.rawValue, Array("/v".utf8)), .init(AgentRequestTag.id.rawValue, AgentRequest.encode(id)),
                .init(AgentRequestTag.secret.rawValue, Array("s3cret\n".utf8)),
            ])),
            ("listing", AgentRequest.listing(vault: "/v", query: ItemQuery(service: "mail")).message),
        ]
    }

    /// Replies of each shape (docs/agent.md, section 4).
    private static func agentReplies() -> [(String, AgentMessage)] {
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        let attributes = ItemAttributes(id: id, created: Date(timeIntervalSince1970: 1_700_000_000), modified: Date(timeIntervalSince1970: 1_700_000_000))
        return [
            ("done", AgentReply.done.message), ("not-held", AgentReply.notHeld.message),
            ("agent", AgentReply.agent(pid: 42, vaults: [], failures: [HoldFailure(path: "/v", message: "m")], secretService: .busClosed).message),
            ("item", AgentReply.item(Item(attributes: attributes, secret: Data("s".utf8))).message),
            ("secret", AgentReply.secret(Data("s3cret".utf8)).message), ("count", AgentReply.count(3).message),
            ("items", AgentReply.items([attributes]).message),
            ("items-next", AgentReply.items([attributes], next: id).message),
            ("helper-reported", AgentReply.reported(Data("credentials not found in native keychain\n".utf8), exitStatus: 1).message),
            ("error", AgentReply.failure(.vaultNotFound(path: "/v")).message),
            ("error-machine-key", AgentReply.failure(.machineKey(.tpmUnreachable(reason: "tcti: IO failure"))).message),
            ("token", AgentReply.token(BrokeredToken(
                value: "access", type: "Bearer", issuedAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: Date(timeIntervalSince1970: 1_700_003_600),
                scope: "openid profile", apiOrigins: ["https://api.example.com"])).message),
            ("token-failure", AgentReply.tokenFailure(.providerUnavailable("HTTP 503")).message),
            ("token-login-required", AgentReply.tokenFailure(.loginRequired).message),
        ]
    }

    /// Program encodings (docs/vault-format.md, section 8): valid ones of each shape,
    /// and a few that break one rule each.
    private static func programs() -> [(String, [UInt8])] {
        let digest = [UInt8](repeating: 0xAB, count: Program.digestLength)
        let plain = try! Program(executablePath: Array("/usr/bin/git".utf8))
        let pinned = try! Program(executablePath: Array("/home/ada/bin/sync".utf8), executableDigest: digest, executablePinned: true)
        let script = try! Program(
            executablePath: Array("/usr/bin/python3.11".utf8), executableDigest: digest, script: Array("/home/ada/tools/backup.py".utf8),
            scriptDigest: digest, scriptPinned: true, systemdUnit: "backup.service")
        let module = try! Program(executablePath: Array("/usr/bin/python3.11".utf8), script: Array("module:keyring".utf8))
        let flatpak = try! Program(executablePath: Array("/app/bin/app (unreachable)".utf8), executableDigest: digest, executablePinned: true, sandboxApp: "flatpak:org.example.App")
        let nonUTF8 = try! Program(executablePath: Array("/opt/caf".utf8) + [0xE9])
        let encoded = script.encoded
        return [
            ("plain", plain.encoded), ("pinned", pinned.encoded), ("script", encoded), ("module", module.encoded),
            ("flatpak", flatpak.encoded), ("non-utf8-path", nonUTF8.encoded),
            ("truncated", Array(encoded.dropLast())),
            ("out-of-order", Array(encoded.drop { $0 != 0x04 }) + Array(plain.encoded)),
            ("repeated", plain.encoded + plain.encoded),
            ("pin-without-digest", plain.encoded + [0x03, 0, 0, 0, 0]),
        ]
    }

    /// Rows as docs/vault-format.md 4.1 describes them: KDF "argon2id13" with a 16-byte salt.
    private static func slotRows() -> [(String, SlotColumns)] {
        let wrapped = [UInt8](repeating: 0xA5, count: SlotRow.wrappedKeyLength)
        let salt = [UInt8](repeating: 0x5A, count: 16)
        func row(_ kind: String, kdf: String? = nil, ops: Int64? = nil, mem: Int64? = nil, salt: [UInt8]? = nil, wrapped: [UInt8] = wrapped) -> SlotColumns {
            SlotColumns(kind: kind, kdf: kdf, opslimit: ops, memlimit: mem, salt: salt, wrappedKey: wrapped)
        }
        return [
            ("passphrase", row("passphrase", kdf: "argon2id13", ops: 3, mem: 64 << 20, salt: salt)),
            ("keyfile", row("keyfile")),
            ("key", row("key")),
            ("secret-service", row("secret-service")),
            ("unknown-kind", row("future-kind", kdf: "scrypt", ops: 1, salt: [1, 2, 3], wrapped: [])),
            ("passphrase-short-salt", row("passphrase", kdf: "argon2id13", ops: 3, mem: 64 << 20, salt: Array(salt.prefix(15)))),
            ("passphrase-cost-too-high", row("passphrase", kdf: "argon2id13", ops: Int64.max, mem: -1, salt: salt)),
            ("keyfile-with-kdf", row("keyfile", kdf: "argon2id13")),
            ("key-short-wrapping", row("key", wrapped: Array(wrapped.dropLast()))),
            ("systemd-creds", row("systemd-creds", kdf: "systemd-creds", salt: Array("DHzAexF2RZGcSwvqCLwg/iAAAAABAAAADAAAABAAAA==".utf8))),
            ("systemd-creds-device", row("systemd-creds", kdf: "systemd-creds;tpm2-device=/dev/tpmrm0", salt: [0x0c, 0x7c])),
            ("systemd-creds-no-credential", row("systemd-creds", kdf: "systemd-creds")),
        ]
    }
}
