import Coffer
import Foundation

/// The committed format-v1 fixture: Tests/CofferTests/Fixtures/v1.vault, made once by
/// `coffer-test-helper make-fixture Tests/CofferTests/Fixtures`. Later versions must keep reading it.
enum Fixture {
    static let passphrase = "coffer fixture v1"
    /// 2026-11-22T00:00:00Z, the created and modified date of every item.
    static let date = Date(timeIntervalSince1970: 1_795_305_600)

    static let items: [(ItemID, Data, ItemOptions)] = [
        (.genericPassword(service: "com.example.mail", account: "alice@example.com"), Data("correct horse".utf8),
         ItemOptions(label: "Mail", comment: "fixture item", custom: ["env": "prod", "tier": "gold"])),
        (.internetPassword(server: "api.example.com", account: "svc"), Data("tok_123".utf8),
         ItemOptions(label: "API", internet: InternetAttributes(protocol: "https", port: 443, path: "/v1", authenticationType: "oauth2"))),
        (.genericPassword(service: "binary", account: "bytes"), Data([0x00, 0xFF, 0x10, 0x80, 0x00]), ItemOptions()),
        (.genericPassword(service: "ünïcödé", account: "名前"), Data("パスワード🔑".utf8), ItemOptions(label: "Ünïcödé")),
        (.genericPassword(service: "token", account: "alice"), Data("eyJhbGciOi.fixture.token".utf8),
         ItemOptions(expiresAt: Date(timeIntervalSince1970: 4_102_444_800))),
        (.genericPassword(service: "empty", account: "none"), Data(), ItemOptions()),
    ]

    static func make(in folder: URL) throws {
        let vaultURL = folder.appendingPathComponent("v1.vault"), keyURL = folder.appendingPathComponent("v1.key")
        try KeyFile.generate(at: keyURL)
        let configuration = Vault.Configuration(passphraseCost: .interactive, now: { date })
        let vault = try Vault.create(at: vaultURL, with: .passphrase(passphrase), configuration: configuration)
        try vault.addKeySlot(.keyFile(keyURL))
        for (id, secret, options) in items { try vault.set(secret, for: id, options: options) }
    }
}
