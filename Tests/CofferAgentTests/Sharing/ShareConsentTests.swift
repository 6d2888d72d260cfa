import Coffer
import CofferAgent
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// A share lets its clients past every owner and access list, so it is the person's decision:
/// unless the vault's policy is `open`, the agent shares only with a credential that opens the
/// vault (docs/security.md, "Sharing with sandboxes and other hosts"). Before, any program of
/// the user could ask for a share of any item, connect to it, and read what its own requests
/// were refused.
final class ShareConsentTests: InProcessAgentTestCase {
    private let key = SecureBytes.random(count: 32)
    private var vaultPath = ""
    private var vault: Vault!
    private var shareSocket: String { folder.file("share.sock").path }
    private let grant = ShareGrant(scope: .service(itemClass: .genericPassword, service: "mail.example", account: nil), readWrite: true)

    override func setUpWithError() throws {
        try startServer(AgentServerLimits())
        let url = folder.file("consent.vault")
        vault = try Vault.create(at: url, with: .key(key))
        try vault.set(Data("s3cret".utf8), for: .genericPassword(service: "mail.example", account: "ada"))
        vaultPath = url.resolvingSymlinksInPath().path
        server?.holdUntilStopped(vault, at: vaultPath)
    }

    private func share(_ credential: AgentCredential?) throws -> AgentReply {
        try AgentClient(path: socketPath).send(.share(vault: vaultPath, socket: shareSocket, grant: grant, lifetime: 600, credential: credential))
    }

    private func lastEntry() throws -> AuditEntry? {
        try vault.auditLog().last
    }

    /// Under `confirm` (a new vault's policy), a share asked for with no credential, or with one
    /// that does not open the vault, is refused: nothing listens at its socket, and the refusal
    /// is in the audit log as a `share` that was `denied`.
    func testAShareWithoutTheVaultsCredentialIsRefusedAndLogged() throws {
        guard case .failure(.accessDenied) = try share(nil) else { return XCTFail("shared with no credential") }
        XCTAssertNotEqual(access(shareSocket, F_OK), 0, "nothing listens")
        XCTAssertEqual(try lastEntry()?.action, .share)
        XCTAssertEqual(try lastEntry()?.decision, .denied)

        guard case .failure(.wrongKey) = try share(.key(SecureBytes.random(count: 32))) else { return XCTFail("shared with another key") }
        XCTAssertNotEqual(access(shareSocket, F_OK), 0, "nothing listens")
        XCTAssertEqual(try lastEntry()?.decision, .denied)
    }

    /// With the vault's own key the share is made, under `strict` too, and the item is read
    /// through it and through the agent's socket: checking the key touched none of the held
    /// vault's locks (a second `Vault` on the file would have, at its close).
    func testAShareWithTheVaultsCredentialIsMade() throws {
        try vault.setAccessPolicy(.strict)
        guard case .done = try share(.key(key)) else { return XCTFail("not shared") }
        XCTAssertEqual(access(shareSocket, F_OK), 0)
        XCTAssertEqual(try lastEntry()?.action, .share)
        XCTAssertEqual(try lastEntry()?.decision, .shared)
        let id = ItemID.genericPassword(service: "mail.example", account: "ada")
        for socket in [shareSocket, socketPath] {
            guard case .secret(let secret) = try AgentClient(path: socket).send(.secret(vault: vaultPath, id: id)) else {
                return XCTFail("no secret through \(socket)")
            }
            XCTAssertEqual(secret, Data("s3cret".utf8))
        }
        guard case .done = try AgentClient(path: socketPath).send(.unshare(socket: shareSocket)) else { return XCTFail("unshared") }
    }

    /// Under `open`, where every program may use every item anyway, no credential is needed.
    func testUnderTheOpenPolicyNoCredentialIsNeeded() throws {
        try vault.setAccessPolicy(.open)
        guard case .done = try share(nil) else { return XCTFail("not shared") }
        guard case .done = try AgentClient(path: socketPath).send(.unshare(socket: shareSocket)) else { return XCTFail("unshared") }
    }
}
