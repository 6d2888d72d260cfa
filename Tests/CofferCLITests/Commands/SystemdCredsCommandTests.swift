import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// `coffer` with systemd-creds slots and service credentials, with the real systemd-creds and
/// a TPM2 emulated by swtpm: slots add and list, init, --unlock systemd-creds and credential,
/// $COFFER_TPM2_DEVICE, the exit statuses of each failure, kill -9 during `slots add`, and
/// `agent start --hold`.
final class SystemdCredsCommandTests: CLITestCase {
    private let noPerson: [String: String?] = ["COFFER_PASSPHRASE": nil]
    private func addSlot(_ arguments: [String], environment: [String: String?], file: StaticString = #filePath, line: UInt = #line) throws {
        let added = try coffer(["slots", "add", "--add-systemd-creds"] + arguments, environment: environment)
        XCTAssertEqual(added.status, 0, added.stderrText, file: file, line: line)
        XCTAssertTrue(added.stdoutText.hasPrefix("added slot "), added.stdoutText, file: file, line: line)
    }

    private func slotsJSON() throws -> [[String: Any]] {
        let listed = try coffer(["slots", "--json"], environment: noPerson)
        XCTAssertEqual(listed.status, 0, listed.stderrText)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
    }

    func testHostKeyAndTPM2SlotsOpenTheVaultWithNoPersonAndNoKeyFileAndAreListed() throws {
        let hostKey = try HostKey()
        let tpm = try SoftwareTPM()
        try initVaultWithItem()
        // $COFFER_TPM2_DEVICE is no reason to refuse a host-key slot (torture found that): it is ignored there.
        try addSlot(["--with-key", "host"], environment: hostKey.environment.merging(["COFFER_TPM2_DEVICE": tpm.device]) { $1 })
        try addSlot(["--with-key", "tpm2", "--tpm2-device", tpm.device, "--tpm2-pcrs", "7"], environment: hostKey.environment)
        tpm.flushSessions()

        let slots = try slotsJSON()
        XCTAssertEqual(slots.map { $0["kind"] as? String }, ["passphrase", "systemd-creds", "systemd-creds"])
        let host = try XCTUnwrap(slots[1]["systemdCreds"] as? [String: Any])
        XCTAssertEqual(host["keySource"] as? String, "host")
        XCTAssertEqual(host["pcrs"] as? [Int], [])
        let bound = try XCTUnwrap(slots[2]["systemdCreds"] as? [String: Any])
        XCTAssertEqual(bound["keySource"] as? String, "tpm2")
        XCTAssertEqual(bound["pcrs"] as? [Int], [7])
        XCTAssertEqual(bound["tpm2Device"] as? String, tpm.device)
        let text = try coffer(["slots"], environment: noPerson).stdoutText.split(separator: "\n").map { $0.split(separator: "\t") }
        XCTAssertEqual(text.map { $0.count > 2 ? String($0[2]) : "" }.dropFirst(), ["key=host", "key=tpm2 pcrs=7 device=\(tpm.device)"])

        // No passphrase, no key file: the host key opens it by default (the vault's machine slot).
        let get = try coffer(["get", "mail", "ada"], environment: noPerson.merging(hostKey.environment) { $1 })
        XCTAssertEqual(get.stdoutText, "first", get.stderrText)
        // The TPM2 slot alone, with another machine's host key, through $COFFER_TPM2_DEVICE's TPM.
        let otherHost = try HostKey()
        let byTPM = try coffer(["--unlock", "systemd-creds", "get", "mail", "ada"],
                               environment: noPerson.merging(otherHost.environment) { $1 })
        tpm.flushSessions()
        XCTAssertEqual(byTPM.stdoutText, "first", byTPM.stderrText)
    }

    func testInitWithASystemdCredsSlotKeepsThePassphraseSlot() throws {
        let hostKey = try HostKey()
        let created = try coffer(["init", "--kdf", "interactive", "--systemd-creds-slot", "--with-key", "host"], environment: hostKey.environment)
        XCTAssertEqual(created.status, 0, created.stderrText)
        XCTAssertTrue(created.stdoutText.contains("with slot 2: systemd-creds, key host"), created.stdoutText)
        XCTAssertEqual(try slotsJSON().map { $0["kind"] as? String }, ["passphrase", "systemd-creds"])
        XCTAssertEqual(try coffer(["--unlock", "systemd-creds", "list"], environment: noPerson.merging(hostKey.environment) { $1 }).status, 0)
        XCTAssertEqual(try coffer(["--unlock", "passphrase", "list"]).status, 0, "the way back in")

        // rotate-key rewraps the systemd-creds slot through systemd-creds: it still opens after.
        let rotated = try coffer(["--unlock", "passphrase", "rotate-key"], environment: hostKey.environment)
        XCTAssertEqual(rotated.status, 0, rotated.stderrText)
        XCTAssertEqual(try coffer(["--unlock", "systemd-creds", "list"], environment: noPerson.merging(hostKey.environment) { $1 }).status, 0)
    }

    func testEachFailureIsOneLineWithItsExitStatusAndThePassphraseStillOpens() throws {
        let tpm = try SoftwareTPM()
        try initVaultWithItem()
        try addSlot(["--with-key", "tpm2", "--tpm2-device", tpm.device, "--tpm2-pcrs", "7"], environment: [:])
        tpm.flushSessions()
        let machineOnly = ["--unlock", "systemd-creds", "get", "mail", "ada"]
        let withFallback = ["--unlock", "systemd-creds,passphrase", "get", "mail", "ada"]

        // systemd-creds missing: 69.
        let noTools: [String: String?] = ["COFFER_TEST_SYSTEMD_CREDS": folder.file("empty/systemd-creds").path]
        assertFailure(try coffer(machineOnly, environment: noPerson.merging(noTools) { $1 }), status: .unavailable,
                      message: "systemd-creds is not installed (it comes with systemd 250 or later)")
        XCTAssertEqual(try coffer(withFallback, environment: noTools).stdoutText, "first")

        // Another TPM ($COFFER_TPM2_DEVICE overrides the slot's device): 2.
        let otherMachine = try SoftwareTPM()
        let elsewhere: [String: String?] = ["COFFER_TPM2_DEVICE": otherMachine.device]
        assertFailure(try coffer(machineOnly, environment: noPerson.merging(elsewhere) { $1 }), status: .locked,
                      message: "the systemd credential does not open here: another machine's host key, another TPM, or a changed PCR")
        otherMachine.flushSessions()
        XCTAssertEqual(try coffer(withFallback, environment: elsewhere).stdoutText, "first")
        otherMachine.flushSessions()

        // PCR 7 changed: 2.
        try tpm.extendPCR(7, with: 0x99)
        assertFailure(try coffer(machineOnly, environment: noPerson), status: .locked,
                      message: "the systemd credential does not open here: another machine's host key, another TPM, or a changed PCR")
        tpm.flushSessions()
        XCTAssertEqual(try coffer(withFallback).stdoutText, "first")
        tpm.flushSessions()

        // A TPM that stopped answering: 75 within the default 10 s (systemd-creds would wait forever).
        tpm.freeze()
        defer { tpm.thaw() }
        let timedOut = try coffer(machineOnly, environment: noPerson)
        assertFailure(timedOut, status: .timedOut, message: "systemd-creds did not finish within 10 s (the TPM does not answer); it was stopped")
        XCTAssertLessThan(timedOut.duration, .seconds(14), "10 s, and the process's start and end")
        XCTAssertEqual(try coffer(["--systemd-creds-timeout", "2"] + withFallback).stdoutText, "first")

        // Never an empty PCR list, never a PCR out of range: usage errors before anything runs.
        for pcrs in ["", "7+", "24", "seven"] {
            let refused = try coffer(["slots", "add", "--add-systemd-creds", "--with-key", "tpm2", "--tpm2-pcrs", pcrs])
            XCTAssertEqual(refused.exitStatus, .usage, "\(pcrs): \(refused.stderrText)")
        }
    }

    /// systemd-creds never sees `COFFER_PASSPHRASE`, though `coffer` has it while it adds a
    /// host-key slot and opens the vault through it: a stand-in that runs the real one records
    /// the names of the variables it gets.
    func testSystemdCredsNeverSeesThePassphraseVariable() throws {
        let hostKey = try HostKey()
        try initVaultWithItem()
        let record = folder.file("systemd-creds.variables")
        let real = try XCTUnwrap(["/usr/bin/systemd-creds", "/bin/systemd-creds"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let standIn = folder.file("systemd-creds")
        try "#!/bin/sh\nenv | cut -d= -f1 >> '\(record.path)'\nexec \(real) \"$@\"\n".write(to: standIn, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: standIn.path)
        let environment = hostKey.environment.merging(["COFFER_TEST_SYSTEMD_CREDS": standIn.path]) { $1 }

        try addSlot(["--with-key", "host"], environment: environment)
        let get = try coffer(["--unlock", "systemd-creds,passphrase", "get", "mail", "ada"], environment: environment)
        XCTAssertEqual(get.stdoutText, "first", get.stderrText)
        let names = try String(contentsOf: record, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(names.filter { $0 == "SYSTEMD_CREDENTIAL_SECRET" }.count, 2, "the stand-in ran for the add and the get")
        XCTAssertEqual(names.filter { $0.hasPrefix("COFFER_") }, [], "no COFFER_ variable reaches systemd-creds")
    }

    func testKillDuringSlotsAddLeavesAVaultTheOldSlotsOpen() throws {
        let tpm = try SoftwareTPM()
        try initVaultWithItem()
        let before = try slotsJSON().count
        // A stopped TPM holds `slots add` inside its transaction, in systemd-creds encrypt: the
        // kill lands there, with the slot row not yet committed.
        tpm.freeze()
        let adding = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["slots", "add", "--add-systemd-creds", "--with-key", "tpm2", "--tpm2-device", tpm.device],
            environment: ["COFFER_VAULT": vault.path, "COFFER_PASSPHRASE": passphrase, "COFFER_AGENT_SOCKET": agentSocket.path],
            newProcessGroup: true)
        usleep(1_500_000)
        adding.killGroup(SIGKILL)
        _ = try adding.wait(timeout: .seconds(10))
        tpm.thaw()
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).stdoutText, "first", "the passphrase still opens the vault")
        XCTAssertEqual(try coffer(["check"]).status, 0)
        XCTAssertEqual(try slotsJSON().count, before, "the killed add left no slot")
        tpm.flushSessions()
        try addSlot(["--with-key", "tpm2", "--tpm2-device", tpm.device], environment: [:])
        tpm.flushSessions()
        XCTAssertEqual(try coffer(["--unlock", "systemd-creds", "get", "mail", "ada"], environment: noPerson).stdoutText, "first")
        tpm.flushSessions()
    }

    func testACredentialsDirectoryKeyOpensTheVaultAndAnOpenOneIsRefused() throws {
        try initVaultWithItem()
        let keyFile = folder.file("vault.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", keyFile.path]).status, 0)
        let credentials = folder.file("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let credential = credentials.appendingPathComponent("coffer-vault-key")
        try FileManager.default.copyItem(at: keyFile, to: credential)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: credential.path)
        let service: [String: String?] = ["COFFER_PASSPHRASE": nil, "CREDENTIALS_DIRECTORY": credentials.path]

        XCTAssertEqual(try coffer(["--unlock", "credential", "get", "mail", "ada"], environment: service).stdoutText, "first")
        XCTAssertEqual(try coffer(["get", "mail", "ada"], environment: service).stdoutText, "first", "found by default")
        try FileManager.default.moveItem(at: credential, to: credentials.appendingPathComponent("vault"))
        XCTAssertEqual(try coffer(["--credential", "vault", "--unlock", "credential", "get", "mail", "ada"], environment: service).stdoutText, "first")
        assertFailure(try coffer(["--unlock", "credential", "get", "mail", "ada"], environment: service), status: .locked,
                      message: "no service credential coffer-vault-key in $CREDENTIALS_DIRECTORY (is the service started with LoadCredential= or LoadCredentialEncrypted=?)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: credentials.appendingPathComponent("vault").path)
        let open = try coffer(["--credential", "vault", "--unlock", "credential", "get", "mail", "ada"], environment: service)
        XCTAssertEqual(open.exitStatus, .insecurePermissions, open.stderrText)
    }

    func testTheAgentHoldsMachineSlotVaultsAtStartAndReportsTheOneThatFails() throws {
        let hostKey = try HostKey()
        try initVaultWithItem()
        try addSlot(["--with-key", "host"], environment: hostKey.environment)
        let plain = folder.file("plain.vault")
        XCTAssertEqual(try coffer(["init", "--kdf", "interactive"], environment: ["COFFER_VAULT": plain.path]).status, 0)

        var environment = ProcessInfo.processInfo.environment.mapValues { Optional($0) }
        environment["COFFER_AGENT_SOCKET"] = agentSocket.path
        environment["COFFER_PASSPHRASE"] = nil
        environment["SYSTEMD_CREDENTIAL_SECRET"] = hostKey.path
        let started = try ChildProcess.run(
            BuiltProducts.executable("coffer"), ["agent", "start", "--hold", vault.path, "--hold", plain.path], environment: environment)
        XCTAssertEqual(started.status, 0, started.stderrText)
        defer { _ = try? coffer(["agent", "stop"]) }
        let real = { (url: URL) in url.resolvingSymlinksInPath().path }
        XCTAssertEqual(started.stderrText, "coffer: agent: cannot hold \(real(plain)): the vault has no systemd-creds slot and no service credential is given; name a method with --unlock\n")

        let status = try coffer(["agent", "status", "--json"])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let held = try XCTUnwrap(report["vaults"] as? [[String: Any]])
        XCTAssertEqual(held.map { $0["path"] as? String }, [real(vault)])
        XCTAssertNil(held.first?["expiresAt"], "held until the agent stops")
        let failures = try XCTUnwrap(report["holdFailures"] as? [[String: Any]])
        XCTAssertEqual(failures.map { $0["path"] as? String }, [real(plain)])
        XCTAssertTrue(try coffer(["agent", "status"]).stdoutText.contains("\(real(plain)) not held: "))

        let get = try coffer(["get", "mail", "ada"], environment: noPerson)
        XCTAssertEqual(get.stdoutText, "first", "served by the agent, with no credential at all: \(get.stderrText)")
    }

    func testTheExampleServiceUnitVerifiesAndItsAgentHoldsTheVaultFromAnEncryptedCredential() throws {
        let hostKey = try HostKey()
        let unit = try String(contentsOf: packageRoot.appendingPathComponent("contrib/systemd/coffer-vault-agent.service"), encoding: .utf8)
        let copy = folder.file("coffer-vault-agent.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/coffer", with: BuiltProducts.executable("coffer").path)
            .write(to: copy, atomically: false, encoding: .utf8)
        let verify = try ChildProcess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", copy.path])
        XCTAssertEqual(verify.status, 0, verify.stderrText)

        // The unit's set-up steps, with the test's vault and a private host key.
        try initVaultWithItem()
        let keyFile = folder.file("vault.key")
        XCTAssertEqual(try coffer(["slots", "add", "--add-keyfile", keyFile.path]).status, 0)
        let encrypted = folder.file("vault-key.cred")
        let sealed = try ChildProcess.run(
            "systemd-creds", ["encrypt", "--name=coffer-vault-key", keyFile.path, encrypted.path], environment: hostKey.environment)
        XCTAssertEqual(sealed.status, 0, sealed.stderrText)
        try FileManager.default.removeItem(at: keyFile)
        // What LoadCredentialEncrypted= does at start: decrypt into the credentials folder, 0400.
        let credentials = folder.file("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let loaded = credentials.appendingPathComponent("coffer-vault-key")
        let opened = try ChildProcess.run(
            "systemd-creds", ["decrypt", "--name=coffer-vault-key", encrypted.path, loaded.path], environment: hostKey.environment)
        XCTAssertEqual(opened.status, 0, opened.stderrText)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: loaded.path)

        // The unit's ExecStart, with the test's vault in place of /var/lib/coffer/service.vault.
        let execStart = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let arguments = execStart.dropFirst("ExecStart=".count).split(separator: " ").dropFirst()
            .map { $0 == "/var/lib/coffer/service.vault" ? vault.path : String($0) }
        var environment = ProcessInfo.processInfo.environment.mapValues { Optional($0) }
        environment["COFFER_AGENT_SOCKET"] = agentSocket.path
        environment["CREDENTIALS_DIRECTORY"] = credentials.path
        environment["COFFER_PASSPHRASE"] = nil
        agent = try ChildProcess.start(BuiltProducts.executable("coffer").path, arguments, environment: environment)
        var held = false
        for _ in 0..<500 where !held {
            held = try coffer(["agent", "status"]).stdoutText.contains("until the agent stops")
            if !held { usleep(10_000) }
        }
        let status = try coffer(["agent", "status"]).stdoutText
        XCTAssertTrue(held, "the agent holds the vault: \(status)")
        let get = try coffer(["get", "mail", "ada"], environment: noPerson)
        XCTAssertEqual(get.stdoutText, "first", get.stderrText)
    }
}
