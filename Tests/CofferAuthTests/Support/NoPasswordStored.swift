import Coffer
import Foundation
import XCTest

/// Reads every item of `vault`, attributes and secret, and checks that `password` is in none.
/// Returns how many items were read.
@discardableResult
func assertNoPasswordStored(_ password: String, in vault: Vault, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
    let items = try vault.items(matching: .all)
    for item in items {
        let texts = [item.id.service, item.id.account, item.label ?? "", item.comment ?? ""] + item.custom.flatMap { [$0.key, $0.value] }
        XCTAssertFalse(texts.contains { $0.contains(password) }, "the password is in the attributes of \(item.id)", file: file, line: line)
        let secret = try XCTUnwrap(try vault.secret(for: item.id), file: file, line: line)
        XCTAssertNil(secret.range(of: Data(password.utf8)), "the password is in the secret of \(item.id)", file: file, line: line)
    }
    return items.count
}
