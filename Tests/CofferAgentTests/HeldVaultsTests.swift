import Coffer
import CofferAgent
import CofferTestSupport
import XCTest

/// How long the agent holds a vault: its lifetime from `unlock`, and the idle timeout.
final class HeldVaultsTests: XCTestCase {
    let folder = TemporaryFolder()
    let clock = TestClock()

    private func vault() throws -> Vault {
        try Vault.create(at: folder.file("held.vault"), with: .key(SecureBytes.random(count: 32)))
    }

    func testAVaultIsForgottenWhenItsLifetimeEnds() throws {
        let held = HeldVaults(idleTimeout: 3600, now: { [clock] in clock.now })
        held.hold(try vault(), at: "/v", for: 60)
        clock.advance(by: 59)
        XCTAssertNotNil(held.use("/v"))
        clock.advance(by: 2)
        XCTAssertNil(held.use("/v"), "used within the idle timeout, but past its lifetime")
        XCTAssertTrue(held.status.isEmpty)
    }

    func testAVaultUnusedForTheIdleTimeoutIsForgotten() throws {
        let held = HeldVaults(idleTimeout: 10, now: { [clock] in clock.now })
        held.hold(try vault(), at: "/v", for: 3600)
        for _ in 0..<5 {
            clock.advance(by: 9)
            XCTAssertNotNil(held.use("/v"), "each use restarts the idle timeout")
        }
        clock.advance(by: 10)
        held.expire()
        XCTAssertTrue(held.status.isEmpty, "the periodic sweep forgets it without a request")
    }

    func testAVaultHeldFromTheStartOutlastsTheIdleTimeoutUntilLockAndAFailureIsKeptForStatus() throws {
        let held = HeldVaults(idleTimeout: 10, now: { [clock] in clock.now })
        held.recordFailure("no machine slot", at: "/v")
        XCTAssertEqual(held.holdFailures, [HoldFailure(path: "/v", message: "no machine slot")])
        held.hold(try vault(), at: "/v", for: nil)
        XCTAssertTrue(held.holdFailures.isEmpty, "holding the vault clears its failure")
        clock.advance(by: 86_400)
        held.expire()
        XCTAssertNotNil(held.use("/v"), "no lifetime and no idle timeout")
        XCTAssertNil(held.status.first?.expiresAt)
        held.forget("/v")
        XCTAssertNil(held.use("/v"))
    }

    /// A vault a front end (the Secret Service) unlocked for its own clients is forgotten when
    /// that front end's clients go (its bus closed); the socket's vaults stay, and say that the
    /// agent still has work for its socket, as long as they are live.
    func testVaultsAFrontEndUnlockedAreForgottenWithoutTheSocketsOnes() throws {
        let held = HeldVaults(idleTimeout: 10, now: { [clock] in clock.now })
        let vault = try vault()
        held.hold(vault, at: "/bus", for: 3600, holder: .frontEnd)
        XCTAssertFalse(held.holdsVaultsForSocketClients)
        held.hold(vault, at: "/socket", for: 3600)
        XCTAssertTrue(held.holdsVaultsForSocketClients)
        held.forgetFrontEndVaults()
        XCTAssertEqual(held.status.map(\.path), ["/socket"])
        clock.advance(by: 11)
        XCTAssertFalse(held.holdsVaultsForSocketClients, "past its idle timeout, it is as good as forgotten")
    }

    func testLockForgetsOneOrAll() throws {
        let held = HeldVaults(idleTimeout: 3600, now: { [clock] in clock.now })
        let vault = try vault()
        held.hold(vault, at: "/a", for: 60)
        held.hold(vault, at: "/b", for: 60)
        held.forget("/a")
        XCTAssertEqual(held.status.map(\.path), ["/b"])
        held.forgetAll()
        XCTAssertTrue(held.status.isEmpty)
    }
}
