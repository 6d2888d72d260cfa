import CofferTestSupport
import Foundation
import XCTest

final class InitCommandTests: CLITestCase {
    /// `init` creates a 0600 vault; a second `init` refuses with status 73 and keeps the first.
    func testInitCreatesOnce() throws {
        try initVault()
        let mode = try FileManager.default.attributesOfItem(atPath: vault.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8)).status, 0)
        assertFailure(try coffer(["init", "--kdf", "interactive"]), status: .alreadyExists, message: "a vault already exists at \(vault.path)")
        XCTAssertEqual(try coffer(["get", "s", "a"]).stdoutText, "v")
    }

    /// Without --vault or $COFFER_VAULT the vault is $XDG_DATA_HOME/coffer/default.vault (folder
    /// 0700), or ~/.local/share/coffer/default.vault when XDG_DATA_HOME is unset.
    func testDefaultLocation() throws {
        let xdg = folder.file("xdg")
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive"], environment: ["COFFER_VAULT": nil, "XDG_DATA_HOME": xdg.path]).status, 0)
        let made = xdg.appendingPathComponent("coffer/default.vault")
        XCTAssertTrue(FileManager.default.fileExists(atPath: made.path))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: made.deletingLastPathComponent().path)[.posixPermissions] as? Int, 0o700)

        let home = folder.file("home")
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive"], environment: ["COFFER_VAULT": nil, "XDG_DATA_HOME": nil, "HOME": home.path]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/share/coffer/default.vault").path))
    }

    /// `init --keyfile` generates a 0600 key file and a vault that opens with it and no passphrase.
    func testInitWithKeyFile() throws {
        let key = folder.file("vault.key")
        XCTAssertEqual(try coffer(["init", "--keyfile", key.path], environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try coffer(["set", "s", "a"], stdin: Data("v".utf8), environment: ["COFFER_KEYFILE": key.path, "COFFER_PASSPHRASE": nil]).status, 0)
        XCTAssertEqual(try coffer(["--keyfile", key.path, "get", "s", "a"], environment: ["COFFER_PASSPHRASE": nil]).stdoutText, "v")
        assertFailure(try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "x"]), status: .locked, message: "wrong passphrase")
    }

    /// The passphrase can come from a file descriptor (--passphrase-fd); a trailing newline is dropped.
    func testPassphraseFromDescriptor() throws {
        let onFD3: [Int32: Data?] = [3: Data("fd passphrase\n".utf8)]
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive", "--passphrase-fd", "3"], inputs: onFD3, environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        XCTAssertEqual(try coffer(["set", "s", "a", "--passphrase-fd", "3"], stdin: Data("v".utf8), inputs: onFD3, environment: ["COFFER_PASSPHRASE": nil]).status, 0)
        XCTAssertEqual(try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": "fd passphrase"]).stdoutText, "v")
    }

    /// With no passphrase source and no terminal, the command fails at once with status 2.
    func testNoPassphraseSource() throws {
        try initVault()
        assertFailure(
            try coffer(["get", "s", "a"], environment: ["COFFER_PASSPHRASE": nil]), status: .locked,
            message: "no passphrase: use --passphrase-fd, $COFFER_PASSPHRASE or a terminal")
    }
}
