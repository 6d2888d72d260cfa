import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// `SearchItems` and `GetSecrets` answered on GDBus's worker thread (``WorkerThreadCalls``) keep
/// the order a client sent its calls in, and the reads they make stay in the audit log.
final class WorkerThreadCallsTests: XCTestCase {
    /// A client that sends `CreateItem` and, without waiting, `SearchItems` for the item it
    /// creates (20 times, Fixtures/pipelined_calls.py) gets the creation's reply first, and every
    /// search finds its item: no search is answered on the worker thread ahead of the creation
    /// that the main loop has still to make.
    func testASearchSentBehindACreationFindsTheItem() throws {
        let fixture = try ProviderFixture()
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("pipelined_calls.py").path])
        XCTAssertEqual(output.status, 0, output.stderrText)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
        XCTAssertEqual(results["found"] as? Int, 20)
        XCTAssertEqual(results["order"] as? [String], Array(repeating: ["create", "search"], count: 20).flatMap { $0 })
    }
}
