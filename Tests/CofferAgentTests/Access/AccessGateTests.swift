@testable import Coffer
import CofferAgent
import CofferTestSupport
import Foundation
import XCTest

/// The access rules every front door shares (docs/security.md, "Per-application access"): the
/// policy, the owner and the access list decide, the prompter answers under `confirm`, and each
/// decision is in the vault's audit log. Real vault files, real prompter processes.
final class AccessGateTests: XCTestCase {
    let folder = TemporaryFolder()
    private let owner = try! Program(executablePath: Array("/usr/bin/python3".utf8), script: Array("/home/u/app.py".utf8))
    private let stranger = try! Program(executablePath: Array("/usr/bin/secret-tool".utf8))
    private let id = ItemID.genericPassword(service: "mail.example", account: "ada")

    private func vault(_ policy: AccessPolicy) throws -> Vault {
        let vault = try Vault.create(at: folder.file("\(policy).vault"), with: .key(SecureBytes.random(count: 32)))
        try vault.setAccessPolicy(policy)
        try vault.set(Data("s3cret".utf8), for: id, owner: owner)
        return vault
    }

    private func gate(_ prompter: String?) -> AccessGate {
        AccessGate(prompter: prompter.map { PrompterCommand(command: $0, timeout: .seconds(5)) }, frontDoor: .agent)
    }

    /// The verdict table: the owner and a listed program always pass; anyone else passes under
    /// `open`, is asked about under `confirm` and refused under `strict`; an unidentified caller
    /// and an item with no owner follow the policy alone.
    func testTheVerdictFollowsPolicyOwnerAndList() {
        let listed = ItemAccess(owner: owner, allowed: [stranger])
        let owned = ItemAccess(owner: owner)
        for policy in AccessPolicy.allCases {
            XCTAssertEqual(AccessGate.verdict(policy: policy, access: owned, program: owner), .allowed(.owner), "\(policy)")
            XCTAssertEqual(AccessGate.verdict(policy: policy, access: listed, program: stranger), .allowed(.allowed), "\(policy)")
        }
        let expected: [AccessPolicy: AccessGate.Verdict] = [.open: .allowed(.open), .confirm: .ask, .strict: .refused]
        for (policy, verdict) in expected {
            XCTAssertEqual(AccessGate.verdict(policy: policy, access: owned, program: stranger), verdict, "\(policy)")
            XCTAssertEqual(AccessGate.verdict(policy: policy, access: owned, program: nil), verdict, "\(policy): unidentified")
            XCTAssertEqual(AccessGate.verdict(policy: policy, access: .unowned, program: owner), verdict, "\(policy): no owner")
        }
    }

    /// A pinned entry admits only the executable with its digest: a modified file is refused.
    func testAPinnedEntryRefusesAModifiedExecutable() throws {
        let pinned = try Program(executablePath: Array("/usr/bin/secret-tool".utf8), executableDigest: Array(repeating: 1, count: 32), executablePinned: true)
        let modified = try Program(executablePath: Array("/usr/bin/secret-tool".utf8), executableDigest: Array(repeating: 2, count: 32))
        let access = ItemAccess(owner: owner, allowed: [pinned])
        XCTAssertEqual(AccessGate.verdict(policy: .strict, access: access, program: modified), .refused)
        let same = try Program(executablePath: Array("/usr/bin/secret-tool".utf8), executableDigest: Array(repeating: 1, count: 32))
        XCTAssertEqual(AccessGate.verdict(policy: .strict, access: access, program: same), .allowed(.allowed))
    }

    /// Under `confirm`, the prompter's `once` lets one read through and changes no list;
    /// `always` puts the program on the item's access list, so the next read asks nobody; `deny`,
    /// a failing prompter and no prompter refuse with the typed error naming the program. Every
    /// decision is in the log, newest first.
    func testConfirmAsksAndRecordsEachAnswer() throws {
        let vault = try vault(.confirm)
        try gate("echo once").authorize(.read, item: id, in: vault, at: "/v", by: stranger)
        XCTAssertEqual(try vault.access(for: id)?.allowed, [])
        for prompter in ["echo deny", "exit 1", nil] as [String?] {
            XCTAssertThrowsError(try gate(prompter).authorize(.read, item: id, in: vault, at: "/v", by: stranger)) { error in
                XCTAssertEqual(error as? CofferError, .accessDenied(program: "/usr/bin/secret-tool"), prompter ?? "none")
            }
        }
        try gate("echo always").authorize(.read, item: id, in: vault, at: "/v", by: stranger)
        XCTAssertEqual(try vault.access(for: id)?.allowed, [stranger])
        try gate(nil).authorize(.read, item: id, in: vault, at: "/v", by: stranger)
        try gate(nil).authorize(.read, item: id, in: vault, at: "/v", by: owner)
        let decisions = try vault.auditLog().map(\.decision)
        XCTAssertEqual(decisions, [.owner, .allowed, .always, .noPrompter, .denied, .denied, .once])
        XCTAssertTrue(try vault.auditLog().allSatisfy { $0.item == id && $0.frontDoor == .agent && $0.action == .read })
    }

    /// The prompter is told the program's executable path alone in `COFFER_PROMPT_PROGRAM`
    /// (docs/prompts.md), and the text it shows names the script and pins too, so the person
    /// can tell two scripts of one interpreter apart.
    func testThePrompterGetsThePathAndTheTextTheWholeProgram() throws {
        let vault = try vault(.confirm)
        let seen = folder.file("seen")
        let pinned = try Program(
            executablePath: Array("/usr/bin/python3".utf8), executableDigest: Array(repeating: 0xAB, count: 32), executablePinned: true,
            script: Array("/home/u/other.py".utf8))
        let prompter = "printf '%s\\n%s' \"$COFFER_PROMPT_PROGRAM\" \"$COFFER_PROMPT\" > '\(seen.path)'; echo deny"
        XCTAssertThrowsError(try gate(prompter).authorize(.read, item: id, in: vault, at: "/v", by: pinned))
        let lines = try String(contentsOf: seen, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "/usr/bin/python3")
        XCTAssertTrue(lines.contains("Program: /usr/bin/python3 running /home/u/other.py (pinned: executable sha256 abababababab…)"), "\(lines)")
    }

    /// `strict` refuses without running the prompter; `open` lets anyone through without it.
    /// Both decisions are logged.
    func testStrictNeverAsksAndOpenNeverAsks() throws {
        let ran = folder.file("ran")
        let prompter = "touch '\(ran.path)'; echo always"
        XCTAssertThrowsError(try gate(prompter).authorize(.read, item: id, in: try vault(.strict), at: "/v", by: stranger))
        let open = try vault(.open)
        try gate(prompter).authorize(.delete, item: id, in: open, at: "/v", by: stranger)
        XCTAssertFalse(FileManager.default.fileExists(atPath: ran.path), "the prompter never ran")
        XCTAssertEqual(try open.auditLog().map(\.decision), [.open])
    }

    /// An absent item needs no permission, and nothing is logged for it.
    func testAnAbsentItemPassesUnlogged() throws {
        let vault = try vault(.strict)
        try gate(nil).authorize(.write, item: .genericPassword(service: "new.example", account: "bob"), in: vault, at: "/v", by: stranger)
        XCTAssertEqual(try vault.auditLog(), [])
    }

    /// The refusal names the program and the command that allows it, and never the item.
    func testTheRefusalSaysHowToAllow() {
        let text = CofferError.accessDenied(program: "/usr/bin/secret-tool").description
        XCTAssertTrue(text.contains("/usr/bin/secret-tool") && text.contains("coffer access grant"), text)
        XCTAssertFalse(text.contains("mail.example") || text.contains("ada"), text)
    }
}
