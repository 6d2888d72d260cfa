import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// A login through PAM with no real login and no system user. pamtester runs this test's own
/// service file under cwrap's pam_wrapper (`PAM_WRAPPER_SERVICE_DIR`), pam_matrix checks the
/// password against this test's own password file, and nss_wrapper gives the module a user
/// from this test's own passwd file: a uid no system user has, whose home is in the test's
/// folder. pam_coffer.so (built by the package) runs coffer as that uid, so the tests run as root.
final class PAMLogin {
    let user = "ada"
    let service = "coffer-login"
    let uid: uid_t
    let folder: TemporaryFolder
    /// The module under test, as `make pam` builds it (scripts/pam-module.sh).
    let module: URL
    /// The coffer executable the module runs, unless a test names another.
    let coffer: String
    /// pam_wrapper's test modules (pam_matrix, pam_set_items).
    let wrapperModules: String
    /// libpam_wrapper.so and libnss_wrapper.so, for LD_PRELOAD.
    let preload: String

    var home: URL { folder.file("home") }
    var services: URL { folder.file("services") }
    var passwordFile: URL { folder.file("passdb") }
    /// The login vault: the default vault of the user's own coffer.
    var loginVault: URL { home.appendingPathComponent(".local/share/coffer/default.vault") }

    init(folder: TemporaryFolder) throws {
        guard geteuid() == 0 else { throw MissingPrerequisite.error("the PAM module's tests run as root: coffer runs as another uid") }
        for tool in ["/usr/bin/pamtester", "/usr/bin/setpriv", "/usr/bin/readelf"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw MissingPrerequisite.error("\(tool) is missing (scripts/bootstrap.sh test installs it)")
        }
        let libraries = try ChildProcess.run("pkg-config", ["--libs", "pam_wrapper", "nss_wrapper"])
        let modules = try ChildProcess.run("pkg-config", ["--variable=modules", "pam_wrapper"])
        module = try Self.builtModule.get()
        coffer = try BuiltProducts.executableForOtherUsers("coffer").path
        wrapperModules = modules.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        preload = libraries.stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard libraries.status == 0, modules.status == 0, FileManager.default.fileExists(atPath: "\(wrapperModules)/pam_matrix.so") else {
            throw MissingPrerequisite.error("libpam-wrapper or libnss-wrapper is missing (scripts/bootstrap.sh test installs them)")
        }
        // A uid that no user of this system has, so nothing here can touch a real user's files.
        var candidate = uid_t.random(in: 61000..<65000)
        while getpwuid(candidate) != nil || getgrgid(candidate) != nil { candidate += 1 }
        uid = candidate
        var other = candidate + 1
        while getpwuid(other) != nil || getgrgid(other) != nil { other += 1 }
        otherUID = other
        self.folder = folder
        // The folder is root's: the user may pass through it to its home, and write nothing.
        chmod(folder.url.path, 0o755)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: false)
        chown(home.path, uid, uid)
        chmod(home.path, 0o700)
        try FileManager.default.createDirectory(at: otherHome, withIntermediateDirectories: false)
        chown(otherHome.path, otherUID, otherUID)
        chmod(otherHome.path, 0o700)
        try writeUserDatabase()
        try "\(user):x:\(uid):\n\(otherUser):x:\(otherUID):\n".write(to: folder.file("group"), atomically: true, encoding: .utf8)
    }

    /// A second user, for a session opened as another user than the one who authenticated (sudo's).
    let otherUser = "bob"
    let otherUID: uid_t
    var otherHome: URL { folder.file("bob-home") }

    /// Writes the passwd file of both users; `gecos` is the first user's comment field.
    func writeUserDatabase(gecos: String = "Ada") throws {
        let lines = "\(user):x:\(uid):\(uid):\(gecos):\(home.path):/bin/sh\n\(otherUser):x:\(otherUID):\(otherUID):Bob:\(otherHome.path):/bin/sh\n"
        try lines.write(to: folder.file("passwd"), atomically: true, encoding: .utf8)
    }

    /// pam_coffer.so built once per test process into `.build-pam` at the package root (never committed).
    private static let builtModule = Result { () throws -> URL in
        let folder = packageRoot.appendingPathComponent(".build-pam")
        let build = try ChildProcess.run(packageRoot.appendingPathComponent("scripts/pam-module.sh"), [folder.path], timeout: .seconds(120))
        guard build.status == 0 else { throw MissingPrerequisite.error("scripts/pam-module.sh failed: \(build.stderrText)") }
        return folder.appendingPathComponent("pam_coffer.so")
    }

    /// Sets the password pam_matrix accepts for the user.
    func setPassword(_ password: String) throws {
        try "\(user):\(password):\(service)\n".write(to: passwordFile, atomically: true, encoding: .utf8)
    }

    /// Writes the service file: the module with `arguments` in every stack, as
    /// docs/login-unlock.md places it.
    ///
    /// pam_matrix wipes PAM_AUTHTOK and PAM_OLDAUTHTOK in place once it has checked them, where
    /// pam_unix keeps them for the modules after it. So in auth, pam_exec (`expose_authtok`)
    /// asks for the password first and keeps it, as pam_unix does; in password, pam_set_items
    /// (pam_wrapper's) sets PAM_OLDAUTHTOK again from `$PAM_OLDAUTHTOK` after pam_matrix.
    ///
    /// `sessionSetsItems` puts pam_set_items (pam_wrapper's) before the module in the session
    /// stack: it sets PAM items from pamtester's environment (`PAM_USER`), as sudo sets PAM_USER
    /// to the target user before it opens the session.
    func writeService(_ arguments: String, sessionSetsItems: Bool = false) throws {
        let module = "optional \(self.module.path) \(arguments)"
        let matrix = "\(wrapperModules)/pam_matrix.so passdb=\(passwordFile.path)"
        let lines = [
            "auth required pam_exec.so expose_authtok quiet /bin/cat",
            "auth \(module)",
            "auth required \(matrix)",
            "account required \(matrix)",
            "session required \(matrix)",
        ] + (sessionSetsItems ? ["session required \(wrapperModules)/pam_set_items.so"] : []) + [
            "session \(module)",
            "password required \(matrix)",
            "password required \(wrapperModules)/pam_set_items.so",
            "password \(module)",
        ]
        try (lines.joined(separator: "\n") + "\n").write(to: services.appendingPathComponent(service), atomically: true, encoding: .utf8)
    }

    /// What pamtester did: its exit status, whether the session opened, and the module's log lines.
    struct Outcome {
        let status: Int32
        let stdout: String
        /// The lines pam_syslog wrote (pam_wrapper prints them on stderr), without libpam's own.
        let logLines: [String]
        let stderr: String
    }

    /// Runs `pamtester SERVICE USER operations…` with `input` on stdin (one answer a line).
    /// `pamEnvironment` goes into the PAM environment (`pamtester -E`), as pam_systemd's and pam_env's variables do.
    func pamtester(
        _ operations: [String], input: [String], environment: [String: String] = [:], pamEnvironment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws -> Outcome {
        var variables: [String: String?] = [
            "LD_PRELOAD": preload, "PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": services.path,
            "PAM_WRAPPER_DEBUGLEVEL": "2", "NSS_WRAPPER_PASSWD": folder.file("passwd").path, "NSS_WRAPPER_GROUP": folder.file("group").path,
        ]
        for (name, value) in environment { variables[name] = value }
        let output = try ChildProcess.run(
            "/usr/bin/pamtester", pamEnvironment.sorted { $0.key < $1.key }.flatMap { ["-E", "\($0.key)=\($0.value)"] } + [service, user] + operations,
            environment: variables,
            stdin: Data(input.map { $0 + "\n" }.joined().utf8), timeout: timeout)
        let logLines = output.stderrText.split(separator: "\n").map(String.init)
            .filter { $0.contains("SYSLOG(") && !$0.contains("_pam_init_handlers") }
        return Outcome(status: output.status, stdout: output.stdoutText, logLines: logLines, stderr: output.stderrText)
    }

    /// Runs the built coffer as the user, with the environment a login gives it and nothing else.
    /// `runtimeFolder` sets `XDG_RUNTIME_DIR`, as pam_systemd does for a login.
    func coffer(_ arguments: [String], stdin: Data = Data(), inputs: [Int32: Data?] = [:], runtimeFolder: URL? = nil) throws -> ChildProcess.Output {
        let runtime = runtimeFolder.map { ["XDG_RUNTIME_DIR=\($0.path)"] } ?? []
        return try ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/env", "-i", "HOME=\(home.path)", "PATH=/usr/bin:/bin"] + runtime
                + [coffer] + arguments, stdin: stdin, inputs: inputs)
    }

    /// Creates the login vault as the user would, with `passphrase`.
    func createVault(passphrase: String) throws {
        let created = try coffer(["init", "--kdf", "interactive", "--passphrase-fd", "3"], inputs: [3: Data(passphrase.utf8)])
        XCTAssertEqual(created.status, 0, created.stderrText)
    }

    /// Whether the user's agent holds the login vault unlocked (`coffer agent status`).
    func agentHoldsLoginVault(runtimeFolder: URL? = nil) throws -> Bool {
        let status = try coffer(["agent", "status"], runtimeFolder: runtimeFolder)
        return status.status == 0 && status.stdoutText.contains(loginVault.path)
    }

    /// Stops the user's agent, if one runs.
    func stopAgent(runtimeFolder: URL? = nil) {
        _ = try? coffer(["agent", "stop"], runtimeFolder: runtimeFolder)
    }
}
