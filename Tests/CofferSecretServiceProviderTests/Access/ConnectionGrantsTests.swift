import CofferAgent
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// A `once` answer is a grant for one connection and the process that connected
/// (docs/secret-service.md, "Asking the person"): never for another connection, never once that
/// process can no longer be told (it ended: the caller is unidentified), and gone when the
/// connection leaves the bus.
final class ConnectionGrantsTests: XCTestCase {
    func testAGrantIsTheConnectionsAndItsProcesssAlone() throws {
        let me = try CallerResolver().resolve(pid: getpid(), uid: geteuid())
        let item = ConnectionGrants.Item(collection: "login", rowKey: Array(repeating: 7, count: 32))
        let other = ConnectionGrants.Item(collection: "login", rowKey: Array(repeating: 8, count: 32))
        var grants = ConnectionGrants()
        grants.add([item], for: ":1.5", caller: me)
        XCTAssertTrue(grants.allows(item, for: ":1.5", caller: me))
        XCTAssertFalse(grants.allows(other, for: ":1.5", caller: me), "another item")
        XCTAssertFalse(grants.allows(item, for: ":1.6", caller: me), "another connection")
        XCTAssertFalse(grants.allows(item, for: ":1.5", caller: nil), "the process that connected can no longer be told")
        grants.removeAll(of: ":1.5")
        XCTAssertFalse(grants.allows(item, for: ":1.5", caller: me), "the connection left the bus")
    }
}
