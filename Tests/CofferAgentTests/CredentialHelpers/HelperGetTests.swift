@testable import Coffer
@testable import CofferAgent
import CofferAgentWire
import CofferTestSupport
import Foundation
import XCTest

/// The agent's `helper get` (docs/agent.md, section 3) on a real vault its handler holds: the
/// helper's rules run on a store whose every read is the handler's own answer for the caller,
/// through the access gate, so a helper gets through one request exactly what its item requests
/// would get, each read logged; a read that would ask the person makes the whole request wait for
/// the thread that may ask; a share, and an agent without the rules, refuse it.
final class HelperGetTests: XCTestCase {
    let folder = TemporaryFolder()
    private let app = try! Program(executablePath: Array("/usr/bin/app".utf8))
    private let other = try! Program(executablePath: Array("/usr/bin/other".utf8))
    private let mine = ItemID.genericPassword(service: "app.example", account: "ada")

    /// Rules that read the item the input names by its account, and answer its secret.
    private struct ReadTheNamedItem: CredentialHelperRules {
        func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
            let id = ItemID.genericPassword(service: "app.example", account: String(decoding: input, as: UTF8.self))
            return Array(try store.secret(for: id) ?? Data("none".utf8))
        }
    }

    private func caller(_ program: Program) -> Caller {
        Caller(uid: geteuid(), pid: getpid(), startTime: 0, program: program, handle: nil)
    }

    private func held(_ policy: AccessPolicy, rules: (any CredentialHelperRules)? = ReadTheNamedItem()) throws -> (AgentRequestHandler, String, Vault) {
        let url = folder.file("helper.vault")
        let vault = try Vault.create(at: url, with: .key(SecureBytes.random(count: 32)))
        try vault.setAccessPolicy(policy)
        try vault.set(Data("mine".utf8), for: mine, owner: app)
        let handler = AgentRequestHandler(vaults: HeldVaults(idleTimeout: 600), helperRules: rules)
        handler.vaults.hold(vault, at: url.path, for: 600)
        return (handler, url.path, vault)
    }

    private func request(_ path: String, _ account: String) -> AgentRequest {
        .helperGet(vault: path, helper: .git, input: SecureBytes(copying: Array(account.utf8)))
    }

    /// The owner's helper gets the secret, a missing item is the rules' own answer, and each read
    /// is one audit entry of the owner's program.
    func testTheOwnersHelperGetsItsItemAndTheReadIsLogged() throws {
        let (handler, path, vault) = try held(.strict)
        guard case .secret(let answer?) = handler.handle(request(path, "ada"), from: caller(app)) else { return XCTFail("no answer") }
        XCTAssertEqual(answer, Data("mine".utf8))
        guard case .secret(let none?) = handler.handle(request(path, "bob"), from: caller(app)) else { return XCTFail("no answer") }
        XCTAssertEqual(none, Data("none".utf8))
        let reads = try vault.auditLog().filter { $0.action == .read && $0.item == mine }
        XCTAssertEqual(reads.map(\.program), [app])
    }

    /// Under `strict` another program's helper is refused, as its `secret` request would be;
    /// under `confirm` the request is not answered without asking (`nil`: nothing done), and
    /// with nobody to ask it is refused.
    func testAnotherProgramIsRefusedAndConfirmWaitsForTheThreadThatMayAsk() throws {
        let (strict, strictPath, _) = try held(.strict)
        guard case .failure(.accessDenied) = strict.handle(request(strictPath, "ada"), from: caller(other)) else {
            return XCTFail("another program read the item under strict")
        }
        try FileManager.default.removeItem(at: folder.file("helper.vault"))
        let (confirm, confirmPath, _) = try held(.confirm)
        XCTAssertNil(confirm.handleWithoutAsking(request(confirmPath, "ada"), from: caller(other)), "answered without asking")
        guard case .failure(.accessDenied) = confirm.handle(request(confirmPath, "ada"), from: caller(other)) else {
            return XCTFail("read with nobody to ask")
        }
    }

    /// An agent without the helpers' rules, and a share, answer an error: the helper then asks
    /// item by item, and the share's grant applies to each request.
    func testNoRulesAndSharesRefuseIt() throws {
        let (handler, path, _) = try held(.open, rules: nil)
        guard case .failure = handler.handle(request(path, "ada"), from: caller(app)) else { return XCTFail("answered without rules") }
        let filter = ShareFilter(vault: path, grant: ShareGrant(scope: .program(app), readWrite: false))
        guard case .failure = filter.reply(to: request(path, "ada"), from: nil, handler: handler) else { return XCTFail("a share answered it") }
    }

    /// A vault the agent does not hold is `not held`, as for an item request.
    func testAVaultNotHeldIsNotHeld() throws {
        let (handler, _, _) = try held(.open)
        guard case .notHeld = handler.handle(request("/nowhere.vault", "ada"), from: caller(app)) else { return XCTFail("answered") }
    }

    /// A failure the rules report as the helper would (docker's "not found") is answered with
    /// its output and exit status, which read back from the wire as sent; a store refusal stays
    /// an error, for the full helper to report.
    func testAReportedFailureIsAnsweredWithItsOutputAndExitStatus() throws {
        struct NotFound: CredentialHelperRules {
            func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
                throw CredentialHelperReport(output: Array("credentials not found in native keychain\n".utf8), exitStatus: 1)
            }
        }
        let (handler, path, _) = try held(.open, rules: NotFound())
        let reply = handler.handle(request(path, "ada"), from: caller(app))
        guard case .reported(let output, 1) = reply else { return XCTFail("\(reply)") }
        XCTAssertEqual(output, Data("credentials not found in native keychain\n".utf8))
        let wire = try XCTUnwrap(AgentMessage(body: Array(reply.message.frame.dropFirst(4))))
        XCTAssertEqual(try wire.single(AgentReplyTag.exitStatus.rawValue), [1])
        guard case .reported(output, 1) = try AgentReply(wire, to: request(path, "ada")) else { return XCTFail("read back otherwise") }
        let zero = AgentMessage(kind: AgentReplyKind.ok.rawValue, fields: [.init(AgentReplyTag.secret.rawValue, []), .init(AgentReplyTag.exitStatus.rawValue, [0])])
        XCTAssertThrowsError(try AgentReply(zero, to: request(path, "ada")), "a report with status 0")
    }
}
