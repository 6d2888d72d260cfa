import CofferAgentWire
@testable import Coffer
import XCTest

/// The checks the thin programs make without Foundation (``PathSafety``) say what the vault's
/// and the agent client's errors say: each problem's text is the text of the error it maps to.
final class PathProblemTests: XCTestCase {
    func testEachProblemReadsAsItsError() {
        let problems: [PathSafety.Problem] = [
            .missing(path: "/nowhere"), .unavailable(reason: "cannot stat /x: denied"),
            .insecure(path: "/run/x", reason: "mode 777 lets others in; expected 700"), .notUTF8(path: "/bad"),
        ]
        for problem in problems {
            XCTAssertEqual(CofferError(problem).description, problem.description)
        }
    }

    /// The wire's class bytes are the vault's.
    func testTheWiresItemClassesAreTheVaults() {
        XCTAssertEqual(AgentItemClass.genericPassword, ItemClass.genericPassword.rawValue)
        XCTAssertEqual(AgentItemClass.internetPassword, ItemClass.internetPassword.rawValue)
    }
}
