import CofferTestSupport
import Foundation
import XCTest

/// Names and passphrases that are not valid UTF-8 are refused from argv, descriptors and the
/// environment alike: before, invalid bytes became U+FFFD, so two inputs reached one item or key.
final class ArgumentEncodingTests: CLITestCase {
    /// `svc\xff` and `svc\xfe` were the same item.
    func testNamesThatAreNotUTF8AreRefused() throws {
        try initVault()
        assertFailure(try shell(#"printf s | "$COFFER" set "$(printf 'svc\377')" a"#), status: .usage, message: "argument 2 is not valid UTF-8")
        assertFailure(try shell(#""$COFFER" get "$(printf 'svc\376')" a"#), status: .usage, message: "argument 2 is not valid UTF-8")
        XCTAssertEqual(try coffer(["list"]).stdoutText, "")
    }

    /// Passphrase bytes `ff ff ff ff` opened a vault made with `fe fd fc 80`. Each is refused
    /// from a descriptor and from the environment.
    func testPassphrasesThatAreNotUTF8AreRefused() throws {
        try initVault()
        assertFailure(try shell(#"unset COFFER_PASSPHRASE; printf '\377\377\377\377' | "$COFFER" --passphrase-fd 0 get s a"#),
                      status: .usage, message: "invalid argument: the passphrase is not valid UTF-8")
        assertFailure(try shell(#"COFFER_PASSPHRASE="$(printf '\376\375\374\200')" "$COFFER" get s a"#),
                      status: .usage, message: "$COFFER_PASSPHRASE is not valid UTF-8")
        assertFailure(try shell(#"unset COFFER_PASSPHRASE; printf '\377\377' | "$COFFER" --passphrase-fd 0 init --vault "$COFFER_VAULT.2""#),
                      status: .usage, message: "invalid argument: the passphrase is not valid UTF-8")
    }

    /// Valid non-ASCII names and passphrases still work, and distinct names stay distinct.
    func testValidUnicodeStillWorks() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "caf\u{E9}", "a"], stdin: Data("1".utf8)).status, 0)
        XCTAssertEqual(try coffer(["set", "caf\u{FFFD}", "a"], stdin: Data("2".utf8)).status, 0)
        XCTAssertEqual(try coffer(["get", "caf\u{E9}", "a"]).stdoutText, "1")
        XCTAssertEqual(try coffer(["get", "caf\u{FFFD}", "a"]).stdoutText, "2")
    }
}
