import CofferTestSupport
import Foundation
import XCTest

/// Secrets named by descriptor (`--passphrase-fd N`, `--new-passphrase-fd N`) are read and
/// checked before any vault is opened: a closed descriptor, or one of the vault's own files,
/// is refused, and the vault's credential is never replaced by the vault's own bytes.
final class DescriptorInputTests: CLITestCase {
    /// `passwd --new-passphrase-fd 3 3<&-` exited 0 and set the vault file's first bytes as the
    /// new passphrase, so nobody knew it. Now it exits 64 and the old passphrase still works.
    func testPasswdWithAClosedDescriptorKeepsTheOldPassphrase() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        assertFailure(try shell(#""$COFFER" passwd --new-passphrase-fd 3 3<&-"#), status: .usage, message: "file descriptor 3 is not open")
        XCTAssertEqual(try coffer(["get", "s", "a"]).stdoutText, "v")
    }

    /// A descriptor that is the vault itself, its -wal or its -shm is refused for every option.
    func testTheVaultsOwnFilesAreNotSecrets() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        // An empty -wal and -shm, as a running process leaves them (mode 0600).
        let cases = [
            #""$COFFER" passwd --new-passphrase-fd 3 3<"$COFFER_VAULT""#,
            #"unset COFFER_PASSPHRASE; umask 077; : > "$COFFER_VAULT-shm"; "$COFFER" --passphrase-fd 3 get s a 3<"$COFFER_VAULT-shm""#,
            #"umask 077; : > "$COFFER_VAULT-wal"; "$COFFER" slots add --add-passphrase --new-passphrase-fd 3 3<"$COFFER_VAULT-wal""#,
        ]
        for script in cases {
            assertFailure(try shell(script), status: .usage, message: "file descriptor 3 is the vault's own file, not a secret")
        }
        XCTAssertEqual(try coffer(["get", "s", "a"]).stdoutText, "v")
        XCTAssertEqual(try coffer(["slots"]).stdoutText.split(separator: "\n").count, 1, "no slot was added")
    }

    /// A closed --passphrase-fd is refused the same way, and nothing is created.
    func testClosedPassphraseDescriptorIsRefused() throws {
        assertFailure(try shell(#"unset COFFER_PASSPHRASE; "$COFFER" --passphrase-fd 3 init 3<&-"#), status: .usage, message: "file descriptor 3 is not open")
        XCTAssertFalse(FileManager.default.fileExists(atPath: vault.path))
    }
}
