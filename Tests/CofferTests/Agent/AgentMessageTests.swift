import CofferAgentWire
import Foundation
@testable import Coffer
import XCTest

/// The frame codec of docs/agent.md, section 2: what it writes, and every malformed body it refuses.
final class AgentMessageTests: XCTestCase {
    func testAFrameIsLengthVersionKindAndTaggedFields() {
        let message = AgentMessage(kind: 0x11, fields: [.init(0x01, Array("/v".utf8))])
        XCTAssertEqual(message.frame, [0, 0, 0, 9, 1, 0x11, 0x01, 0, 0, 0, 2, 0x2F, 0x76])
        XCTAssertEqual(AgentMessage(body: Array(message.frame.dropFirst(4))), message)
    }

    func testMalformedBodiesAreRefused() {
        XCTAssertNil(AgentMessage(body: []), "empty")
        XCTAssertNil(AgentMessage(body: [1]), "no kind")
        XCTAssertNil(AgentMessage(body: [2, 0x01]), "another version")
        XCTAssertNil(AgentMessage(body: [1, 0x01, 0x01, 0, 0]), "a field header cut short")
        XCTAssertNil(AgentMessage(body: [1, 0x01, 0x01, 0, 0, 0, 3, 0x41]), "a field that runs past the end")
        XCTAssertNil(AgentMessage(body: [1, 0x01, 0x01, 0xFF, 0xFF, 0xFF, 0xFF]), "a field claiming 4 GiB")
        XCTAssertNil(AgentMessage(body: [UInt8](repeating: 1, count: AgentMessage.maxBodyBytes + 1)), "over 4 MiB")
    }

    func testRequestsRoundTrip() throws {
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        var query = ItemQuery()
        query.service = "mail"
        query.custom["team"] = "ops"
        let requests: [AgentRequest] = [
            .ping, .status, .stop, .lock(vault: nil), .lock(vault: "/v"), .holds(vault: "/v"),
            .unlock(vault: "/v", credential: .keyFile("/k"), lifetime: 60),
            .item(vault: "/v", id: id), .secret(vault: "/v", id: id), .remove(vault: "/v", id: id),
            .items(vault: "/v", query: query), .items(vault: "/v", query: query, after: id), .removeAll(vault: "/v", query: query),
            .set(vault: "/v", id: id, secret: Data("s3".utf8), options: ItemOptions()),
            .share(vault: "/v", socket: "/s", grant: ShareGrant(
                scope: .service(itemClass: .internetPassword, service: "registry.example", account: nil), readWrite: false), lifetime: 60,
                credential: nil),
            .share(vault: "/v", socket: "/s", grant: ShareGrant(
                scope: .service(itemClass: .genericPassword, service: "mail", account: "ada"), readWrite: true), lifetime: 86_400,
                credential: .passphrase(SecureBytes(copying: Array("pw".utf8)))),
            .share(vault: "/v", socket: "/s", grant: ShareGrant(
                scope: .program(try Program(executablePath: Array("/usr/bin/app".utf8))), readWrite: false), lifetime: 1,
                credential: .keyFile("/k")),
            .share(vault: "/v", socket: "/s", grant: ShareGrant(scope: .profile("work.1"), readWrite: false), lifetime: 3_600,
                credential: .key(SecureBytes(copying: Array(repeating: 7, count: 32)))),
            .unshare(socket: "/s"),
            .listing(vault: "/v", query: query), .listing(vault: "/v", query: ItemQuery()),
        ]
        var widest = ItemQuery()
        for index in 0..<Limits.maxCustomAttributes { widest.custom["a\(index)"] = "v" }
        for request in requests + [.items(vault: "/v", query: widest)] {
            let decoded = try AgentRequest(try XCTUnwrap(AgentMessage(body: Array(request.message.frame.dropFirst(4)))))
            XCTAssertEqual(decoded.message, request.message, "\(request)")
        }
    }

    /// The thin `coffer set`'s plain form (docs/agent.md, section 3): the vault, the item's id and
    /// its secret (tag 0x14), read as the set of that item with no options, its names in NFC as a
    /// record's are.
    func testAPlainSetIsTheIdAndTheSecret() throws {
        let decomposed = "cafe\u{301}"
        let message = AgentMessage(kind: 0x10, fields: [
            .init(0x01, Array("/v".utf8)), .init(0x02, AgentItemName.encode(itemClass: 1, service: decomposed, account: "ada")),
            .init(0x14, [0x73, 0x00, 0x0A]),
        ])
        guard case .set(let vault, let id, let secret, let options) = try AgentRequest(message) else { return XCTFail("not a set") }
        XCTAssertEqual(vault, "/v")
        XCTAssertEqual(Array(id.service.utf8), Array("caf\u{e9}".utf8))
        XCTAssertEqual(id, .genericPassword(service: "caf\u{e9}", account: "ada"))
        XCTAssertEqual(secret, Data([0x73, 0x00, 0x0A]))
        XCTAssertEqual(options, ItemOptions())
    }

    /// A profile's share is the share's fields with the profile alone (tag 0x0F), no query, no
    /// program and no read-write flag, byte for byte as docs/agent.md section 3 gives it, and
    /// reads back as the same grant.
    func testAProfilesShareIsTheProfileFieldAlone() throws {
        let request = AgentRequest.share(vault: "/v", socket: "/s", grant: ShareGrant(scope: .profile("work"), readWrite: false), lifetime: 60, credential: nil)
        XCTAssertEqual(request.message, AgentMessage(kind: 0x08, fields: [
            .init(0x01, Array("/v".utf8)), .init(0x0F, Array("work".utf8)), .init(0x0A, [0, 0, 0, 60]), .init(0x0C, Array("/s".utf8)),
        ]))
        guard case .share("/v", "/s", let grant, 60, nil) = try AgentRequest(try XCTUnwrap(AgentMessage(body: Array(request.message.frame.dropFirst(4))))) else {
            return XCTFail("not a share")
        }
        XCTAssertEqual(grant, ShareGrant(scope: .profile("work"), readWrite: false))
        XCTAssertEqual(grant.item, .genericPassword(service: "coffer.openid", account: "work"), "the log names the profile's settings item")
        XCTAssertFalse(grant.covers(.genericPassword(service: "coffer.openid", account: "work"), owner: nil), "it covers no item")
        XCTAssertNil(grant.narrowed(ItemQuery()), "its listings select nothing")
    }

    func testStatusRepliesCarryVaultsHeldUntilStoppedAndHoldFailures() throws {
        let held = HeldVaultStatus(
            path: "/held", vaultID: String(repeating: "ab", count: 16), unlockedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: nil, lastUse: Date(timeIntervalSince1970: 2_000))
        let timed = HeldVaultStatus(
            path: "/timed", vaultID: String(repeating: "cd", count: 16), unlockedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: Date(timeIntervalSince1970: 4_600), lastUse: Date(timeIntervalSince1970: 2_000))
        let failure = HoldFailure(path: "/failed", message: "the systemd credential does not open here")
        let reply = AgentReply.agent(pid: 7, vaults: [held, timed], failures: [failure])
        guard case .agent(let pid, let vaults, let failures, let secretService) = try AgentReply(
            try XCTUnwrap(AgentMessage(body: Array(reply.message.frame.dropFirst(4)))), to: .status)
        else { return XCTFail("not a status reply") }
        XCTAssertEqual(pid, 7)
        XCTAssertEqual(vaults, [held, timed], "a vault held until the agent stops has no expiry")
        XCTAssertEqual(failures, [failure])
        XCTAssertNil(secretService, "an agent without --secret-service says nothing of it")
    }

    /// Status carries how the agent's Secret Service stands: serving, or gone with its bus or
    /// its name (`agent status` shows it); a byte of no known state is a protocol error.
    func testStatusRepliesCarryTheSecretServicesState() throws {
        for state in SecretServiceStatus.allCases {
            let reply = AgentReply.agent(pid: 7, vaults: [], secretService: state)
            guard case .agent(_, _, _, let decoded) = try AgentReply(
                try XCTUnwrap(AgentMessage(body: Array(reply.message.frame.dropFirst(4)))), to: .status)
            else { return XCTFail("not a status reply") }
            XCTAssertEqual(decoded, state)
        }
        let agentField = AgentMessage.Field(0x25, [0, 0, 0, 7, 0, 0, 0, UInt8(AgentMessage.version)])
        let unknown = AgentMessage(kind: 0x80, fields: [agentField, AgentMessage.Field(0x28, [9])])
        XCTAssertThrowsError(try AgentReply(unknown, to: .status))
    }

    func testMachineKeyErrorsCrossTheWireWithTheirCase() throws {
        let failures: [MachineKeyFailure] = [
            .systemdCredsMissing, .notThisMachine, .boundElsewhere, .tpmUnreachable(reason: "tcti: IO failure"),
            .timedOut(seconds: 10), .failed(reason: "Permission denied"), .serviceCredentialMissing(name: "coffer-vault-key"),
        ]
        for failure in failures {
            let reply = AgentReply.failure(.machineKey(failure))
            guard case .failure(let error) = try AgentReply(
                try XCTUnwrap(AgentMessage(body: Array(reply.message.frame.dropFirst(4)))), to: .ping)
            else { return XCTFail("not an error reply") }
            XCTAssertEqual(error, .machineKey(failure))
        }
    }

    func testRequestsThatBreakTheRulesAreRefused() {
        let vault = AgentMessage.Field(0x01, Array("/v".utf8))
        let id = AgentMessage.Field(0x02, AgentRequest.encode(.genericPassword(service: "s", account: "a")))
        let socket = AgentMessage.Field(0x0C, Array("/s".utf8))
        let genericClass = AgentMessage.Field(0x04, [1])
        let service = AgentMessage.Field(0x05, Array("mail".utf8))
        let program = AgentMessage.Field(0x0D, (try? Program(executablePath: Array("/usr/bin/app".utf8)))?.encoded ?? [])
        let minute = AgentMessage.Field(0x0A, bigEndian(UInt32(60)))
        let profile = AgentMessage.Field(0x0F, Array("work".utf8))
        let refused: [(String, AgentMessage)] = [
            ("an unknown kind", AgentMessage(kind: 0x7F)),
            ("an unknown tag", AgentMessage(kind: 0x01, fields: [.init(0x55, [])])),
            ("a relative vault path", AgentMessage(kind: 0x06, fields: [.init(0x01, Array("v".utf8))])),
            ("a vault path that is not UTF-8", AgentMessage(kind: 0x06, fields: [.init(0x01, [0x2F, 0xFF])])),
            ("a repeated vault", AgentMessage(kind: 0x11, fields: [vault, vault, id])),
            ("no item id", AgentMessage(kind: 0x11, fields: [vault])),
            ("a bad item id", AgentMessage(kind: 0x11, fields: [vault, .init(0x02, [9, 0, 0, 0, 0, 0, 0, 0, 0])])),
            ("an unlock without lifetime", AgentMessage(kind: 0x03, fields: [vault, .init(0x08, [3]), .init(0x09, Array("/k".utf8))])),
            ("an unlock for 8 days", AgentMessage(kind: 0x03, fields: [vault, .init(0x08, [3]), .init(0x09, Array("/k".utf8)), .init(0x0A, bigEndian(UInt32(691_200)))])),
            ("an unknown credential kind", AgentMessage(kind: 0x03, fields: [vault, .init(0x08, [9]), .init(0x09, []), .init(0x0A, bigEndian(UInt32(60)))])),
            ("a set with a malformed record", AgentMessage(kind: 0x10, fields: [vault, .init(0x03, [1, 2, 3])])),
            ("a set with a record and a secret", AgentMessage(kind: 0x10, fields: [
                vault, id, .init(0x14, [1]),
                .init(0x03, AgentRequest.set(vault: "/v", id: .genericPassword(service: "s", account: "a"), secret: Data(), options: ItemOptions())
                    .message.fields.last?.value ?? []),
            ])),
            ("a set with a secret and no id", AgentMessage(kind: 0x10, fields: [vault, .init(0x14, [1])])),
            ("a plain set of an attribute item", AgentMessage(kind: 0x10, fields: [
                vault, .init(0x02, AgentItemName.encode(itemClass: 3, service: "mail", account: "ada")), .init(0x14, [1]),
            ])),
            ("a set with a record and an id", AgentMessage(kind: 0x10, fields: [
                vault, id,
                .init(0x03, AgentRequest.set(vault: "/v", id: .genericPassword(service: "s", account: "a"), secret: Data(), options: ItemOptions())
                    .message.fields.last?.value ?? []),
            ])),
            ("a listing without a vault", AgentMessage(kind: 0x1A, fields: [service])),
            ("a share for more than a day", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, .init(0x0A, bigEndian(UInt32(86_401)))])),
            ("a share without a socket", AgentMessage(kind: 0x08, fields: [vault, genericClass, service, minute])),
            ("a share with a relative socket", AgentMessage(kind: 0x08, fields: [vault, .init(0x0C, Array("s".utf8)), genericClass, service, minute])),
            ("a share of no service", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, minute])),
            ("a share of a service and a program", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, program, minute])),
            ("a share's read-write flag with a value", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, minute, .init(0x0E, [1])])),
            ("a share's credential without its kind", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, minute, .init(0x09, Array("pw".utf8))])),
            ("a share's credential kind without bytes", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, minute, .init(0x08, [1])])),
            ("a share's relative key file", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, minute, .init(0x08, [3]), .init(0x09, Array("k".utf8))])),
            ("a query of more attributes than an item may have", AgentMessage(kind: 0x14, fields: [vault] + (0...Limits.maxCustomAttributes).map {
                .init(0x07, bigEndian(UInt32("a\($0)".utf8.count)) + Array("a\($0)v".utf8))
            })),
            ("an unshare without a socket", AgentMessage(kind: 0x09)),
            ("a share of a profile and a service", AgentMessage(kind: 0x08, fields: [vault, socket, genericClass, service, profile, minute])),
            ("a share of a profile and a program", AgentMessage(kind: 0x08, fields: [vault, socket, program, profile, minute])),
            ("a read-write share of a profile", AgentMessage(kind: 0x08, fields: [vault, socket, profile, minute, .init(0x0E, [])])),
            ("a share of a profile with a query attribute", AgentMessage(kind: 0x08, fields: [vault, socket, profile, minute, .init(0x07, [0, 0, 0, 1, 0x61, 0x62])])),
            ("a share of a profile no login can have", AgentMessage(kind: 0x08, fields: [vault, socket, .init(0x0F, Array("a b".utf8)), minute])),
            ("a share of an empty profile", AgentMessage(kind: 0x08, fields: [vault, socket, .init(0x0F, []), minute])),
            ("a share of two profiles", AgentMessage(kind: 0x08, fields: [vault, socket, profile, profile, minute])),
        ]
        for (reason, message) in refused {
            XCTAssertThrowsError(try AgentRequest(message), reason)
        }
    }
}
