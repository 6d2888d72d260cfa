import CofferTestSupport
import Foundation
import XCTest

/// kubectl's exec credential plugin on the token broker (docs/agent.md, section 11): kubectl,
/// configured only through a kubeconfig `exec` entry that runs `coffer token --exec-credential`,
/// sends the agent's access token to a loopback HTTPS stand-in for an API server
/// (Fixtures/kube_api_standin.py), which checks the bearer token.
final class KubectlExecCredentialTests: BrokerTestCase {
    /// Debian's kubectl (`$COFFER_KUBECTL`, which scripts/test.sh sets from
    /// scripts/debian-kubectl.sh), else the one on PATH; and whether it takes
    /// `client.authentication.k8s.io/v1` (1.22 and later; Debian 12's is 1.20, which takes
    /// `v1beta1`).
    private func kubectl() throws -> (path: String, takesV1: Bool) {
        let path = ProcessInfo.processInfo.environment["COFFER_KUBECTL"].flatMap { $0.isEmpty ? nil : $0 } ?? "kubectl"
        let version: ChildProcess.Output
        do {
            version = try ChildProcess.run(path, ["version", "--client"], timeout: .seconds(30))
        } catch let error as POSIXError where error.code == .ENOENT {
            throw MissingPrerequisite.error("kubectl is not installed (scripts/debian-kubectl.sh unpacks Debian's)")
        }
        // 1.20 prints `Minor:"20"`; later ones `Client Version: v1.32.4`.
        let minor = (version.stdoutText.firstMatch(of: /Client Version: v1\.(\d+)\./)?.1 ?? version.stdoutText.firstMatch(of: /Minor:"(\d+)/)?.1)
            .flatMap { Int($0) } ?? 0
        return (path, minor >= 22)
    }

    /// With the agent holding the login, `kubectl get --raw` through an `exec` user of each API
    /// version kubectl takes reaches the stand-in with `Authorization: Bearer` and the agent's
    /// token (kubectl tells the plugin the version in `$KUBERNETES_EXEC_INFO`, and `coffer token
    /// --exec-credential` answers in it); a kubeconfig whose exec runs another profile, which has
    /// no login, gets nothing to the server.
    func testKubectlSendsTheAgentsToken() async throws {
        let kubectl = try kubectl()
        try startAgentHoldingTheVault()
        try await login()
        let token = try coffer(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        let tokenFile = folder.file("expected-token")
        try Data(token.stdout).write(to: tokenFile)

        let cert = folder.file("cert.pem").path, key = folder.file("key.pem").path
        let made = try ChildProcess.run("openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ], timeout: .seconds(60))
        XCTAssertEqual(made.status, 0, made.stderrText)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/kube_api_standin.py")
        let standin = try ChildProcess.start("/usr/bin/python3", [script.path, cert, key, tokenFile.path], inputs: [0: nil])
        defer { _ = standin.stop(grace: .seconds(2)) }
        let port = try standin.lines(1, timeout: .seconds(30))[0]

        var checks: [(version: String, profile: String, authorized: Bool)] = [("v1beta1", "default", true), ("v1beta1", "other", false)]
        if kubectl.takesV1 { checks.append(("v1", "default", true)) }
        for (index, check) in checks.enumerated() {
            let kubeconfig = folder.file("kubeconfig-\(index)")
            try Data("""
                apiVersion: v1
                kind: Config
                clusters:
                - name: standin
                  cluster: {server: "https://127.0.0.1:\(port)", certificate-authority: "\(cert)"}
                users:
                - name: coffer
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/\(check.version)
                      command: "\(BuiltProducts.executable("coffer").path)"
                      args: ["token", "--exec-credential", "--profile", "\(check.profile)"]
                      interactiveMode: Never
                contexts:
                - name: standin
                  context: {cluster: standin, user: coffer}
                current-context: standin

                """.utf8).write(to: kubeconfig)
            let path = "/coffer-check-\(index)"
            let got = try ChildProcess.run(
                kubectl.path, ["--kubeconfig", kubeconfig.path, "get", "--raw", path], environment: baseEnvironment, timeout: .seconds(60))
            if check.authorized {
                XCTAssertEqual(got.status, 0, "\(check): \(got.stderrText)")
                XCTAssertEqual(got.stdoutText, #"{"ok":true}"#, "\(check)")
                XCTAssertTrue(standin.waitForLine("\(path) authorized", timeout: .seconds(10)), "\(check)")
            } else {
                XCTAssertNotEqual(got.status, 0, "\(check): no token, no request: \(got.stdoutText)")
                XCTAssertFalse(standin.waitForLine("\(path) authorized", timeout: .milliseconds(200)), "\(check)")
            }
        }
    }
}
