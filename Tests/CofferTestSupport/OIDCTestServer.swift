import Foundation
import Synchronization
import XCTest

/// django-oauth-toolkit (DOT), an OpenID Connect provider no one on Coffer wrote, running on
/// 127.0.0.1 for a test: Tests/CofferAuthTests/Fixtures/oidc_server.py, with the packages
/// scripts/oidc-deps.sh installs (`make test` does, and exports `COFFER_OIDC_SITE`).
///
/// ```swift
/// let server = try OIDCTestServer.shared(.init(testHooks: true))   // one per options and process
/// let provider = try await OpenIDProvider.discover(issuer: server.issuer)
/// ```
///
/// The server's stdin is a pipe this process holds: it exits with the test process, whatever
/// happens. ``stop()`` (or ``stopShared()`` in a class's `tearDown`) ends it sooner.
public final class OIDCTestServer: Sendable {
    /// The server's flags (see oidc_server.py). The defaults are DOT's, except the ones the
    /// harness adds (all off).
    public struct Options: Sendable, Hashable {
        /// TEST-ONLY: discovery also names the revocation, device and introspection endpoints.
        public var augmentDiscovery = false
        /// TEST-ONLY: answer `slow_down` to device polls faster than the interval, raising the
        /// code's interval by `slowDownIncrement` seconds.
        public var slowDown = false
        public var slowDownIncrement = 5
        /// TEST-ONLY: `POST /test/device-expire` (``expireDeviceCode(userCode:)``).
        public var testHooks = false
        /// DOT's DEVICE_FLOW_INTERVAL (the `interval` of device authorizations).
        public var deviceInterval = 5
        public var accessTokenTTL = 3600
        public var idTokenTTL = 3600
        /// Whether replaying a rotated refresh token revokes its whole family (DOT's
        /// REFRESH_TOKEN_REUSE_PROTECTION; on here).
        public var reuseProtection = true
        /// RFC 9207 `iss` in (successful) authorization responses.
        public var issuerInCallback = true
        /// More arguments for oidc_server.py.
        public var extraArguments: [String] = []

        public init(
            augmentDiscovery: Bool = false, slowDown: Bool = false, slowDownIncrement: Int = 5, testHooks: Bool = false,
            deviceInterval: Int = 5, accessTokenTTL: Int = 3600, idTokenTTL: Int = 3600, reuseProtection: Bool = true,
            issuerInCallback: Bool = true, extraArguments: [String] = []
        ) {
            self.augmentDiscovery = augmentDiscovery
            self.slowDown = slowDown
            self.slowDownIncrement = slowDownIncrement
            self.testHooks = testHooks
            self.deviceInterval = deviceInterval
            self.accessTokenTTL = accessTokenTTL
            self.idTokenTTL = idTokenTTL
            self.reuseProtection = reuseProtection
            self.issuerInCallback = issuerInCallback
            self.extraArguments = extraArguments
        }

        var arguments: [String] {
            var arguments = [
                "--device-interval", "\(deviceInterval)", "--access-token-ttl", "\(accessTokenTTL)", "--id-token-ttl", "\(idTokenTTL)",
            ]
            if augmentDiscovery { arguments.append("--augment-discovery") }
            if slowDown { arguments += ["--slow-down", "--slow-down-increment", "\(slowDownIncrement)"] }
            if testHooks { arguments.append("--test-hooks") }
            if !reuseProtection { arguments.append("--no-reuse-protection") }
            if !issuerInCallback { arguments.append("--no-iss-in-callback") }
            return arguments + extraArguments
        }
    }

    /// The seeded clients.
    public struct Clients: Sendable, Hashable {
        /// Public, authorization code + PKCE, no consent page.
        public let native: String
        /// Public, authorization code + PKCE, with a consent page.
        public let nativeConsent: String
        /// Public, device authorization grant.
        public let device: String
        /// Confidential, authorization code + PKCE; its secret is `confidentialSecret`.
        public let confidential: String
        public let confidentialSecret: String
    }

    public let options: Options
    /// Exactly as the server names itself: `http://127.0.0.1:PORT/o`.
    public let issuer: URL
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// The seeded user: `coffer`.
    public let username: String
    /// The seeded user's password. Tests check that it is never stored.
    public let password: String
    public let clients: Clients

    private let process: ChildProcess

    // MARK: DOT's endpoints (stock discovery names only some of them)

    public var discoveryURL: URL { URL(string: issuer.absoluteString + "/.well-known/openid-configuration")! }
    public var authorizationEndpoint: URL { URL(string: issuer.absoluteString + "/authorize/")! }
    public var tokenEndpoint: URL { URL(string: issuer.absoluteString + "/token/")! }
    public var revocationEndpoint: URL { URL(string: issuer.absoluteString + "/revoke_token/")! }
    public var deviceAuthorizationEndpoint: URL { URL(string: issuer.absoluteString + "/device-authorization/")! }
    public var userinfoEndpoint: URL { URL(string: issuer.absoluteString + "/userinfo/")! }
    public var jwksURI: URL { URL(string: issuer.absoluteString + "/.well-known/jwks.json")! }
    /// Where the user enters a device's user code.
    public var deviceVerificationURI: URL { URL(string: issuer.absoluteString + "/device/")! }

    private init(options: Options, process: ChildProcess, issuer: URL, info: [String: Any]) throws {
        let clients = info["clients"] as? [String: String] ?? [:]
        guard let base = (info["base_url"] as? String).flatMap(URL.init(string:)), let username = info["username"] as? String,
              let password = info["password"] as? String, let native = clients["native"], let consent = clients["native_consent"],
              let device = clients["device"], let confidential = clients["confidential"], let secret = clients["confidential_secret"]
        else { throw SetupFailure(message: "oidc_server.py's second line lacks base_url, username, password or clients") }
        self.options = options
        self.process = process
        self.issuer = issuer
        self.baseURL = base
        self.username = username
        self.password = password
        self.clients = Clients(native: native, nativeConsent: consent, device: device, confidential: confidential, confidentialSecret: secret)
    }

    // MARK: Starting and stopping

    /// What running the server needs: a Python and the folder of its packages.
    public struct Setup: Sendable {
        public let python: String
        public let site: URL
        public let script: URL
    }

    /// Finds the packages: `COFFER_OIDC_SITE`, else `.build-oidc/pydeps` when scripts/oidc-deps.sh
    /// has filled it. Without them, the test fails when `COFFER_STRICT_TESTS=1` (as `make test`
    /// sets), and is skipped otherwise, saying how to install them.
    public static func requireSetup() throws -> Setup {
        let environment = ProcessInfo.processInfo.environment
        let script = packageRoot.appendingPathComponent("Tests/CofferAuthTests/Fixtures/oidc_server.py")
        var site: URL?
        if let path = environment["COFFER_OIDC_SITE"], !path.isEmpty {
            site = URL(fileURLWithPath: path)
        } else {
            let local = packageRoot.appendingPathComponent(".build-oidc/pydeps")
            if FileManager.default.fileExists(atPath: local.appendingPathComponent(".stamp").path) { site = local }
        }
        guard let site, FileManager.default.fileExists(atPath: site.appendingPathComponent("oauth2_provider").path) else {
            let message = "the OpenID test server's packages (django-oauth-toolkit) are not installed: run `make test`, "
                + "or scripts/oidc-deps.sh and then swift test"
            throw MissingPrerequisite.error(message)
        }
        // The interpreter the packages were installed with (the cffi wheel is for one Python).
        var python = environment["COFFER_OIDC_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        if python == nil, let recorded = try? String(contentsOf: site.appendingPathComponent(".python"), encoding: .utf8) {
            let path = recorded.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: path) { python = path }
        }
        if python == nil { python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3" }
        return Setup(python: python!, site: site, script: script)
    }

    /// Starts a server of its own. Startup takes 1–2 s (a fresh RSA key, a migrated database).
    public static func start(_ options: Options = Options()) throws -> OIDCTestServer {
        let setup = try requireSetup()
        let process = try ChildProcess.start(
            setup.python, [setup.script.path, "--quiet", "--exit-on-stdin-eof", "--site", setup.site.path] + options.arguments,
            environment: ["PYTHONPATH": setup.site.path, "PYTHONDONTWRITEBYTECODE": "1"], inputs: [0: nil])
        let lines: [String]
        do {
            lines = try process.lines(2, timeout: .seconds(90))
        } catch {
            process.stop(grace: .seconds(1))
            throw SetupFailure(message: "oidc_server.py did not start: \(error)")
        }
        guard let issuer = URL(string: lines[0]), let info = (try? JSONSerialization.jsonObject(with: Data(lines[1].utf8))) as? [String: Any]
        else {
            process.stop(grace: .seconds(1))
            throw SetupFailure(message: "oidc_server.py printed no issuer and JSON")
        }
        return try OIDCTestServer(options: options, process: process, issuer: issuer, info: info)
    }

    private static let registry = Mutex<[Options: OIDCTestServer]>([:])

    /// A server with these options shared by every test of the process that asks for the same
    /// options: start-up is paid once. Tests must not depend on what other tests did on it
    /// (each login is its own; the seeded user and clients never change).
    public static func shared(_ options: Options = Options()) throws -> OIDCTestServer {
        if let server = registry.withLock({ $0[options] }) { return server }
        let server = try start(options)
        return registry.withLock { servers in
            if let existing = servers[options] {
                server.stop()
                return existing
            }
            servers[options] = server
            return server
        }
    }

    /// Stops every shared server (a test class's `tearDown`).
    public static func stopShared() {
        let servers = registry.withLock { servers in
            defer { servers = [:] }
            return Array(servers.values)
        }
        servers.forEach { $0.stop() }
    }

    /// Ends the server: closes its stdin, then SIGTERM, then SIGKILL.
    public func stop() {
        process.stop(grace: .seconds(5))
    }

    // MARK: Acting at the server, as the user or as anyone

    /// Approves (or denies) a device login as the seeded user, through DOT's own pages: opens
    /// the verification URI (with the code, when given), logs in, submits the user code, then
    /// accepts or denies. Returns DOT's status page text ("Device Authorized" / "Device Denied").
    @discardableResult
    public func answerDeviceLogin(userCode: String, verificationURIComplete: URL? = nil, approve: Bool = true) async throws -> String {
        let approver = DeviceApprover(username: username, password: password)
        let page = try await approver.answer(
            userCode: userCode, at: verificationURIComplete ?? deviceVerificationURI, decision: approve ? .approve : .deny)
        let expected = approve ? "Authorized" : "Denied"
        guard page.status == 200, page.text.contains("Device \(expected)") else {
            throw SetupFailure(message: "DOT did not report the device \(expected): HTTP \(page.status) \(page.text.prefix(200))")
        }
        return page.text
    }

    /// TEST-ONLY hook (`testHooks`): marks the device grant of `userCode` expired, so its next
    /// poll answers `expired_token`.
    public func expireDeviceCode(userCode: String) async throws {
        let response = try await LoopbackHTTP.postForm(baseURL.appendingPathComponent("test/device-expire"), [("user_code", userCode)])
        guard response.status == 200, (response.jsonObject()?["updated"] as? Int) == 1 else {
            throw SetupFailure(message: "POST /test/device-expire: \(response) \(response.text.prefix(200)) (start the server with testHooks)")
        }
    }

    /// Sends a refresh token to the token endpoint directly, as a replaying attacker would.
    public func refresh(_ refreshToken: String, clientID: String) async throws -> LoopbackHTTP.Response {
        try await LoopbackHTTP.postForm(tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
    }

    /// `GET /userinfo/` with an access token: 200 while DOT holds the token valid, 401 after.
    public func userinfo(accessToken: String) async throws -> LoopbackHTTP.Response {
        try await LoopbackHTTP.get(userinfoEndpoint, headers: [LoopbackHTTP.Header("Authorization", "Bearer \(accessToken)")])
    }

    /// The server could not be used.
    public struct SetupFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }

        public init(message: String) { self.message = message }
    }
}

extension OIDCTestServer {
    /// TEST-ONLY hook (`testHooks`): how many refresh grants have reached the token endpoint
    /// since the server started, and how many of them DOT refused (`invalid_grant` and the like).
    public func refreshCount() async throws -> (count: Int, refused: Int) {
        let response = try await LoopbackHTTP.get(baseURL.appendingPathComponent("test/refresh-count"))
        guard response.status == 200, let object = response.jsonObject(), let count = object["count"] as? Int, let refused = object["refused"] as? Int
        else { throw SetupFailure(message: "GET /test/refresh-count: \(response) (start the server with testHooks)") }
        return (count, refused)
    }
}
