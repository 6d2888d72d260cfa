import Coffer
import Foundation

/// The committed format-v2 fixture: Tests/CofferTests/Fixtures/v2.vault, made once by
/// `coffer-test-helper make-fixture-v2 Tests/CofferTests/Fixtures` with the code of format
/// version 2 (before version 3's owners and access lists). Later versions must keep reading it.
enum FixtureV2 {
    static let passphrase = "coffer fixture v2"
    /// 2026-11-27T00:00:00Z, the created and modified date of every item.
    static let date = Date(timeIntervalSince1970: 1_796_083_200)

    static let items: [(ItemID, Data, ItemOptions)] = [
        (.genericPassword(service: "com.example.mail", account: "alice@example.com"), Data("correct horse".utf8),
         ItemOptions(label: "Mail", comment: "fixture item", custom: ["env": "prod", "tier": "gold"])),
        (.internetPassword(server: "api.example.com", account: "svc"), Data("tok_123".utf8),
         ItemOptions(label: "API", internet: InternetAttributes(protocol: "https", port: 443, path: "/v1", authenticationType: "oauth2"))),
        (.attributeItem(identifier: "0123456789abcdef0123456789abcdef"), Data("attribute secret".utf8),
         ItemOptions(label: "Secret Service item", custom: ["xdg:schema": "org.example.Password", "user": "bob"], contentType: "text/plain")),
        (.genericPassword(service: "ünïcödé", account: "名前"), Data("パスワード🔑".utf8), ItemOptions(label: "Ünïcödé")),
        (.genericPassword(service: "token", account: "alice"), Data("eyJhbGciOi.fixture.token".utf8),
         ItemOptions(expiresAt: Date(timeIntervalSince1970: 4_102_444_800), contentType: "application/jwt")),
        (.genericPassword(service: "empty", account: "none"), Data(), ItemOptions()),
    ]

    static func make(in folder: URL) throws {
        let configuration = Vault.Configuration(passphraseCost: .interactive, now: { date })
        let vault = try Vault.create(at: folder.appendingPathComponent("v2.vault"), with: .passphrase(passphrase), configuration: configuration)
        for (id, secret, options) in items { try vault.set(secret, for: id, options: options) }
    }
}
