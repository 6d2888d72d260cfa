import CofferTestSupport
import Foundation
import Glibc
import XCTest
@testable import Coffer

/// `systemd-creds` key slots against the real systemd-creds (systemd 252 on Debian 12) and a
/// TPM2 emulated by swtpm on a loopback port. The host key is a private one
/// (`$SYSTEMD_CREDENTIAL_SECRET`), so the machine's own is never touched; tests that use it
/// need root, as systemd 252's host key does.
final class SystemdCredentialSlotTests: XCTestCase {
    let folder = TemporaryFolder()
    let item = ItemID.genericPassword(service: "svc", account: "me")
    /// This process's variables (systemd-creds gets the `SYSTEMD_*` ones) and descriptors.
    private let inheritable = InheritableState()

    override func tearDown() {
        inheritable.restore()
        super.tearDown()
    }

    private func useHostKey(_ key: HostKey) {
        inheritable.setVariable("SYSTEMD_CREDENTIAL_SECRET", key.path)
    }

    private func tpm2(_ tpm: SoftwareTPM, pcrs: [Int]? = nil, timeout: Duration = SystemdCredentials.defaultTimeout) -> VaultCredential {
        .systemdCredential(SystemdCredentials.Options(withKey: .tpm2, tpm2Device: tpm.device, tpm2PCRs: pcrs, timeout: timeout))
    }

    private func assertMachineKey(_ failure: MachineKeyFailure, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual(error as? CofferError, .machineKey(failure), file: file, line: line)
        }
    }

    func testAHostKeySlotAndATPM2SlotEachOpenTheVaultWithNoPersonAndNoKeyFile() throws {
        let hostKey = try HostKey()
        let tpm = try SoftwareTPM()
        useHostKey(hostKey)
        let vault = try folder.makeVault()
        try vault.set(Data("s3cret".utf8), for: item)
        let hostSlot = try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        let tpmSlot = try vault.addKeySlot(tpm2(tpm, pcrs: [7]))
        tpm.flushSessions()

        let slots = try vault.keySlots()
        XCTAssertEqual(slots.map(\.kind), [
            .passphrase(.test),
            .systemdCredential(SystemdCredentials.Binding(keySource: .host, pcrs: [], tpm2Device: nil)),
            .systemdCredential(SystemdCredentials.Binding(keySource: .tpm2, pcrs: [7], tpm2Device: tpm.device)),
        ], "the listing shows each slot's kind, key source, PCRs and stored device")

        let reopened = try Vault.open(at: vault.url, configuration: .test())
        try reopened.unlock(with: .systemdCredential())
        XCTAssertEqual(try reopened.secret(for: item), Data("s3cret".utf8), "the host-key slot opens it")

        // The TPM2 slot on its own: with another machine's host key, only the TPM opens it.
        try reopened.removeKeySlot(id: hostSlot.id)
        useHostKey(try HostKey())
        let byTPM = try Vault.open(at: vault.url, configuration: .test())
        try byTPM.unlock(with: .systemdCredential())
        tpm.flushSessions()
        XCTAssertEqual(try byTPM.secret(for: item), Data("s3cret".utf8), "slot \(tpmSlot.id), the TPM2 slot, opens it")
    }

    func testAFreshTPMStandingForAnotherMachineCannotOpenTheSlotAndThePassphraseStillDoes() throws {
        let tpm = try SoftwareTPM()
        let vault = try folder.makeVault()
        try vault.addKeySlot(tpm2(tpm))
        tpm.flushSessions()
        let otherMachine = try SoftwareTPM()
        let reopened = try Vault.open(at: vault.url, configuration: .test())
        assertMachineKey(.notThisMachine) {
            try reopened.unlock(with: .systemdCredential(SystemdCredentials.Options(tpm2Device: otherMachine.device)))
        }
        otherMachine.flushSessions()
        let opened = try reopened.unlock(withFirstOf: [
            .systemdCredential(SystemdCredentials.Options(tpm2Device: otherMachine.device)), .passphrase(testPassphrase),
        ])
        XCTAssertTrue(opened.isPassphrase, "the passphrase slot is the way back in")
    }

    func testASlotBoundToPCR7StopsOpeningWhenPCR7ChangesAndThePassphraseStillOpens() throws {
        let tpm = try SoftwareTPM()
        let vault = try folder.makeVault()
        try vault.addKeySlot(tpm2(tpm, pcrs: [7]))
        tpm.flushSessions()
        let before = try Vault.open(at: vault.url, configuration: .test())
        try before.unlock(with: .systemdCredential())
        tpm.flushSessions()

        try tpm.extendPCR(7, with: 0x42)
        let after = try Vault.open(at: vault.url, configuration: .test())
        assertMachineKey(.notThisMachine) { try after.unlock(with: .systemdCredential()) }
        tpm.flushSessions()
        XCTAssertTrue(try after.unlock(withFirstOf: [.systemdCredential(), .passphrase(testPassphrase)]).isPassphrase)
    }

    func testACredentialCopiedIntoAnotherVaultsSlotIsRefusedByItsName() throws {
        let tpm = try SoftwareTPM()
        let first = try folder.makeVault("first.vault")
        let second = try folder.makeVault("second.vault")
        try first.addKeySlot(tpm2(tpm))
        tpm.flushSessions()
        try second.addKeySlot(tpm2(tpm))
        tpm.flushSessions()
        // An attacker who can write the second vault copies the first vault's credential into it.
        let stolen = try XCTUnwrap(try RawVaultFile(first.url).rows("SELECT salt FROM key_slots WHERE kind = 'systemd-creds'").first?.first as? [UInt8])
        let target = try RawVaultFile(second.url)
        try target.execute("UPDATE key_slots SET salt = x'\(stolen.map { String(format: "%02x", $0) }.joined())' WHERE kind = 'systemd-creds'")
        let reopened = try Vault.open(at: second.url, configuration: .test())
        assertMachineKey(.boundElsewhere) { try reopened.unlock(with: .systemdCredential()) }
        tpm.flushSessions()
    }

    func testATPMThatStopsAnsweringIsATimeoutWithinTheLimitAndThePassphraseStillOpens() throws {
        let tpm = try SoftwareTPM()
        let vault = try folder.makeVault()
        try vault.addKeySlot(tpm2(tpm))
        tpm.flushSessions()
        XCTAssertEqual(SystemdCredentials.defaultTimeout, .seconds(10), "the documented default limit")
        tpm.freeze()
        defer { tpm.thaw() }
        let reopened = try Vault.open(at: vault.url, configuration: .test())
        let started = ContinuousClock.now
        let credential = VaultCredential.systemdCredential(SystemdCredentials.Options(timeout: .seconds(2)))
        assertMachineKey(.timedOut(seconds: 2)) { try reopened.unlock(with: credential) }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(8), "systemd-creds is killed at the limit, not waited for")
        XCTAssertTrue(try reopened.unlock(withFirstOf: [credential, .passphrase(testPassphrase)]).isPassphrase)
    }

    func testWithoutSystemdCredsTheSlotFailsTypedAndThePassphraseStillOpens() throws {
        let tpm = try SoftwareTPM()
        let vault = try folder.makeVault()
        try vault.addKeySlot(tpm2(tpm))
        tpm.flushSessions()
        inheritable.setVariable("COFFER_TEST_SYSTEMD_CREDS", folder.file("no-tools/systemd-creds").path)
        assertMachineKey(.systemdCredsMissing) { try vault.addKeySlot(.systemdCredential()) }
        XCTAssertEqual(try vault.keySlots().count, 2, "a slot that could not be sealed is not added")
        let reopened = try Vault.open(at: vault.url, configuration: .test())
        assertMachineKey(.systemdCredsMissing) { try reopened.unlock(with: .systemdCredential()) }
        XCTAssertTrue(try reopened.unlock(withFirstOf: [.systemdCredential(), .passphrase(testPassphrase)]).isPassphrase)
    }

    func testOptionsSystemdWouldMisuseAreRefusedBeforeItRuns() throws {
        let vault = try folder.makeVault()
        for options in [
            SystemdCredentials.Options(withKey: .tpm2, tpm2PCRs: []),
            SystemdCredentials.Options(withKey: .tpm2, tpm2PCRs: [24]),
            SystemdCredentials.Options(withKey: .host, tpm2PCRs: [7]),
            SystemdCredentials.Options(withKey: .tpm2, tpm2Device: "dev\nice"),
            SystemdCredentials.Options(timeout: .zero),
        ] {
            XCTAssertThrowsError(try vault.addKeySlot(.systemdCredential(options)), "\(options)") { error in
                guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try Vault.create(at: folder.file("alone.vault"), with: .systemdCredential()), "never a vault with a machine slot alone")
    }

    func testSystemdCredsGetsTheKeyOnlyThroughItsStandardStreams() throws {
        let hostKey = try HostKey()
        useHostKey(hostKey)
        // The real systemd-creds, behind a stand-in that records each run's arguments.
        let log = folder.file("arguments.log")
        _ = try placeStandIn("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '\(log.path)'\nexec \(try realSystemdCreds) \"$@\"\n")

        let vault = try folder.makeVault()
        let slot = try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        try Vault.open(at: vault.url, configuration: .test()).unlock(with: .systemdCredential())
        let name = "coffer-\(vault.id)-\(slot.id)"
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8), """
            encrypt --name=\(name) --with-key=host - -
            decrypt --name=\(name) --newline=no - -

            """, "every argument is accounted for: the key is in none of them")
    }

    /// Puts `script` where Coffer runs systemd-creds from (a stand-in for it, named by
    /// `$COFFER_TEST_SYSTEMD_CREDS`) until the test ends.
    private func placeStandIn(_ script: String) throws -> URL {
        let tools = folder.file("stand-in")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let standIn = tools.appendingPathComponent("systemd-creds")
        try script.write(to: standIn, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: standIn.path)
        inheritable.setVariable("COFFER_TEST_SYSTEMD_CREDS", standIn.path)
        return standIn
    }

    private var realSystemdCreds: String {
        get throws { try XCTUnwrap(["/usr/bin/systemd-creds", "/bin/systemd-creds"].first { FileManager.default.isExecutableFile(atPath: $0) }) }
    }

    /// systemd-creds starts with descriptors 0, 1 and 2 only and an allow-listed environment:
    /// no `COFFER_PASSPHRASE` (nor any other `COFFER_` variable) although this process has it
    /// and holds another descriptor open (inheritable); `PATH` is the fixed system one; the
    /// `SYSTEMD_*` variables pass (here the private host key's path). The slot still works.
    func testSystemdCredsGetsOnlyItsDescriptorsAndTheAllowedEnvironment() throws {
        let hostKey = try HostKey()
        useHostKey(hostKey)
        inheritable.setVariable("COFFER_PASSPHRASE", "a passphrase systemd-creds must not see")
        inheritable.setVariable("UNLISTED_SYSTEMD_CREDS_TEST_VARIABLE", "not for children")
        inheritable.openInheritableDescriptor()
        let descriptors = folder.file("descriptors")
        let environment = folder.file("environment")
        // In Python: a shell script's own descriptor for the script would show in the listing.
        _ = try placeStandIn("""
            #!/usr/bin/python3
            import os, sys
            def is_open(fd):
                try:
                    os.fstat(fd)
                    return True
                except OSError:
                    return False
            descriptors = [fd for fd in range(1024) if is_open(fd)]
            with open("\(descriptors.path)", "w") as listing:
                listing.write("".join(f"{fd}\\n" for fd in descriptors))
            with open("\(environment.path)", "w") as listing:
                listing.write("".join(f"{name}={value}\\n" for name, value in os.environ.items()))
            os.execv("\(try realSystemdCreds)", ["systemd-creds"] + sys.argv[1:])

            """)

        let vault = try folder.makeVault()
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        XCTAssertEqual(try String(contentsOf: descriptors, encoding: .utf8), "0\n1\n2\n", "descriptors 0, 1 and 2 only")
        let variables = try String(contentsOf: environment, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(variables.map { $0.prefix { $0 != "=" } }.filter { $0.hasPrefix("COFFER_") }, [], "no COFFER_ variable")
        XCTAssertFalse(variables.contains { $0.hasPrefix("UNLISTED_SYSTEMD_CREDS_TEST_VARIABLE=") }, "only allow-listed variables")
        XCTAssertTrue(variables.contains("SYSTEMD_CREDENTIAL_SECRET=\(hostKey.path)"), "SYSTEMD_ variables pass")
        XCTAssertTrue(variables.contains("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), "the fixed system PATH")
        try Vault.open(at: vault.url, configuration: .test()).unlock(with: .systemdCredential())
    }

    /// A `systemd-creds` first on `$PATH` is never run: Coffer runs the system's own
    /// (`/usr/bin/systemd-creds`, `/bin/systemd-creds`).
    func testASystemdCredsFirstOnPathIsNotRun() throws {
        let hostKey = try HostKey()
        useHostKey(hostKey)
        let tools = folder.file("path-tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: false)
        let ran = folder.file("fake-ran")
        let fake = tools.appendingPathComponent("systemd-creds")
        try "#!/bin/sh\ntouch '\(ran.path)'\nexit 1\n".write(to: fake, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: fake.path)
        inheritable.setVariable("PATH", tools.path + ":/usr/bin:/bin")

        let vault = try folder.makeVault()
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        try Vault.open(at: vault.url, configuration: .test()).unlock(with: .systemdCredential())
        XCTAssertFalse(FileManager.default.fileExists(atPath: ran.path), "the systemd-creds on PATH ran")
    }

    /// A systemd-creds that starts a child and hangs is ended at the time limit with its child
    /// (its whole process group), and the failure is the typed timeout.
    func testASystemdCredsThatHangsIsEndedWithItsChildrenAtTheLimit() throws {
        let marker = "coffer-systemd-creds-test-\(UUID().uuidString)"
        defer { for pid in ProcessTable.processes(withCommandLineContaining: marker) { kill(pid, SIGKILL) } }
        _ = try placeStandIn("#!/bin/sh\nsh -c 'sleep 300; : \(marker)' &\nwait\n")
        let vault = try folder.makeVault()
        let started = ContinuousClock.now
        assertMachineKey(.timedOut(seconds: 1)) {
            try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host, timeout: .seconds(1))))
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "ended at the limit")
        let left = ProcessTable.waitUntilGone(commandLineContaining: marker, timeout: .seconds(5))
        XCTAssertEqual(left, [], "left running: \(left.map(ProcessTable.commandLine(of:)))")
    }

    func testRotatingTheVaultKeyKeepsTheSlotOpening() throws {
        let hostKey = try HostKey()
        useHostKey(hostKey)
        let vault = try folder.makeVault()
        try vault.set(Data("kept".utf8), for: item)
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase), .systemdCredential()])
        let reopened = try Vault.open(at: vault.url, configuration: .test())
        try reopened.unlock(with: .systemdCredential())
        XCTAssertEqual(try reopened.secret(for: item), Data("kept".utf8))
    }

    func testTheSlotsColumnsAreCheckedAsTheFormatSays() throws {
        let hostKey = try HostKey()
        useHostKey(hostKey)
        let vault = try folder.makeVault()
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .host)))
        let raw = try RawVaultFile(vault.url)
        let kdf = try XCTUnwrap(try raw.rows("SELECT kdf FROM key_slots WHERE kind = 'systemd-creds'").first?.first as? String)
        XCTAssertEqual(kdf, "systemd-creds", "no device named: systemd's default")
        for damage in ["kdf = 'argon2id13'", "kdf = NULL", "salt = NULL", "opslimit = 3", "kdf = 'systemd-creds;tpm2-device='"] {
            let copy = folder.file("copy-\(damage.hashValue).vault")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: vault.url.path + suffix) {
                try FileManager.default.copyItem(atPath: vault.url.path + suffix, toPath: copy.path + suffix)
            }
            try RawVaultFile(copy).execute("UPDATE key_slots SET \(damage) WHERE kind = 'systemd-creds'")
            XCTAssertThrowsError(try Vault.open(at: copy, configuration: .test()).keySlots(), damage) { error in
                guard case .corruptVault = error as? CofferError else { return XCTFail("\(damage): \(error)") }
            }
        }
    }
}

/// docs/vault-format.md, 4.5, is enough for another implementation: the independent Python
/// reader opens a `systemd-creds` slot with systemd-creds itself, and still reads such a vault
/// with its passphrase.
final class SystemdCredentialFormatTests: XCTestCase {
    let folder = TemporaryFolder()

    func testThePythonReaderOpensTheSlotWithSystemdCredsAndStillReadsByPassphrase() throws {
        let hostKey = try HostKey()
        let tpm = try SoftwareTPM()
        setenv("SYSTEMD_CREDENTIAL_SECRET", hostKey.path, 1)
        defer { unsetenv("SYSTEMD_CREDENTIAL_SECRET") }
        let vault = try folder.makeVault()
        try vault.set(Data("format".utf8), for: .genericPassword(service: "svc", account: "me"))
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .hostAndTPM2, tpm2Device: tpm.device)))
        tpm.flushSessions()
        let reader = VaultFixtureTests.fixtures.appendingPathComponent("read_vault.py").path
        for (arguments, stdin) in [(["--systemd-creds"], ""), ([], testPassphrase)] {
            let outcome = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["python3", reader, vault.url.path] + arguments,
                environment: hostKey.environment, stdin: Data(stdin.utf8))
            tpm.flushSessions()
            XCTAssertEqual(outcome.status, 0, "\(arguments): \(outcome.stderrText)")
            XCTAssertTrue(outcome.stdoutText.contains(Data("format".utf8).base64EncodedString()), "\(arguments): \(outcome.stdoutText)")
        }
    }

    func testTheClearHeaderGivesTheKeySourceAndPCRs() throws {
        let tpm = try SoftwareTPM()
        let vault = try folder.makeVault()
        try vault.addKeySlot(.systemdCredential(SystemdCredentials.Options(withKey: .tpm2, tpm2Device: tpm.device, tpm2PCRs: [0, 7])))
        tpm.flushSessions()
        guard case .systemdCredential(let binding) = try vault.keySlots().last?.kind else { return XCTFail("no systemd-creds slot") }
        XCTAssertEqual(binding.keySource, .tpm2)
        XCTAssertEqual(binding.pcrs, [0, 7])
        XCTAssertEqual(CredentialHeader(credential: Array("not a credential".utf8)).keySource, .unknown)
    }
}
