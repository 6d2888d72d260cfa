import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// Limits per connection and for all connections together (docs/secret-service.md, "Limits"):
/// a client at its own limit, or a crowd of connections of one client filling the overall one,
/// leaves room for another client; a search with too many attributes is refused before any work.
/// A jeepney client drives it (Fixtures/limits.py).
final class ClientLimitTests: XCTestCase {
    private func run(_ fixture: ProviderFixture, _ arguments: [String]) throws -> [String: Any] {
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("limits.py").path] + arguments)
        XCTAssertEqual(output.status, 0, output.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
    }

    private static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// One connection opens its 32 sessions and is refused a 33rd; 128 connections then hold
    /// 4,096, the overall limit; a client that comes later still opens one (the oldest session
    /// of a connection holding the most makes room), and an early client holding one keeps it.
    /// Before, the late client got `LimitsExceeded`.
    func testALateClientGetsASessionWhileOthersHoldTheMost() throws {
        let fixture = try ProviderFixture()
        let report = try run(fixture, ["sessions", "\(SessionTable.perConnection)", "\(SessionTable.total)"])
        XCTAssertEqual(report["first_connection"] as? [AnyHashable], [SessionTable.perConnection, Self.limitsExceeded])
        XCTAssertEqual(report["late"] as? String, "ok")
        XCTAssertEqual(report["early_kept"] as? String, "ok")
        XCTAssertEqual(report["crowd_refused_more"] as? String, Self.limitsExceeded)
        XCTAssertLessThanOrEqual(fixture.provider.openSessionCount() ?? .max, SessionTable.total)
    }

    /// The same for prompts (`Unlock` of the locked login collection): 16 per connection, 1,024
    /// in all, and a late client still gets a prompt.
    func testALateClientGetsAPromptWhileOthersHoldTheMost() throws {
        let fixture = try ProviderFixture(unlocked: false)
        let report = try run(fixture, ["prompts", "\(PromptTable.perConnection)", "\(PromptTable.total)"])
        XCTAssertEqual(report["first_connection"] as? [AnyHashable], [PromptTable.perConnection, Self.limitsExceeded])
        XCTAssertEqual(report["late"] as? String, "ok")
        XCTAssertTrue((report["late_prompt"] as? String)?.hasPrefix("/org/freedesktop/secrets/prompt/") == true, "\(report)")
    }

    /// `CreateCollection`: a connection creates at most 16, another still creates one, and no
    /// more than 128 created collections exist. Before, there was no limit.
    func testCreatedCollectionsAreLimited() throws {
        let fixture = try ProviderFixture()
        let report = try run(fixture, ["collections", "\(SecretServiceObjects.createdPerConnection)", "\(CollectionRegistry.maxCreated)"])
        XCTAssertEqual(report["first_connection"] as? [AnyHashable], [SecretServiceObjects.createdPerConnection, Self.limitsExceeded])
        XCTAssertEqual(report["second"] as? String, "ok")
        XCTAssertEqual(report["made"] as? Int, CollectionRegistry.maxCreated)
        XCTAssertEqual(report["past_total"] as? String, Self.limitsExceeded)
    }

    /// A search with 300,000 attributes is refused with `LimitsExceeded`, and the provider goes
    /// on serving. (The agent's memory after it: `SecretServiceAgentTests.testAHugeSearchIsRefusedAndItsMemoryGivenBack`.)
    func testAHugeSearchIsRefused() throws {
        let fixture = try ProviderFixture()
        let report = try run(fixture, ["search", "300000"])
        XCTAssertEqual(report["search"] as? String, Self.limitsExceeded)
        XCTAssertEqual(report["after"] as? String, "ok")
    }
}
