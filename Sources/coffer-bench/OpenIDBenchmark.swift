import AsyncHTTPClient
import Coffer
import CofferAuth
import CofferDevBackend
import Foundation
import JWTKit
import Logging

/// `coffer-bench auth`, OpenID part: single-flight refresh under 100 concurrent callers with an
/// expired access token, and what a refresh through `OpenIDClient` costs over the bare token
/// POST it makes, against the in-process dev backend's OpenID provider on 127.0.0.1.
enum OpenIDBenchmark {
    static let refreshes = ProcessInfo.processInfo.environment["COFFER_BENCH_REFRESHES"].flatMap(Int.init) ?? 500
    static let warmup = 50
    static let clientID = OpenIDClientRegistration.native.id
    static let user = DevBackend.Configuration.defaultUser.name

    static func run() async throws {
        let clock = ManualClock()
        var logger = Logger(label: "coffer-bench")
        logger.logLevel = .error
        var configuration = DevBackend.Configuration(now: { clock.now }, logger: logger)
        configuration.openID.deviceApprovalEndpoint = true
        configuration.openID.deviceInterval = 0
        configuration.openID.idTokenLifetime = 365 * 86_400
        let backend = try await DevBackend.start(configuration)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-bench-openid-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let vault = try Vault.create(at: folder.appendingPathComponent("bench.vault"), with: .key(.random(count: 32)))
            let clientConfiguration = OpenIDClient.Configuration(lockFolder: folder, now: { clock.now }, logger: logger)
            let provider = try await OpenIDProvider.discover(issuer: backend.issuer, configuration: clientConfiguration)
            let client = OpenIDClient(provider: provider, clientID: clientID, store: vault, configuration: clientConfiguration)
            try await logIn(client, backend: backend)
            try await SingleFlightRounds.run(
                title: "OpenID single-flight", requests: "refresh requests", backend: backend, clock: clock,
                count: { backend.statistics.refreshRequests }, token: { try await client.accessToken().value })
            let floor = try await RefreshFloor(backend: backend, vault: vault, sessionBytes: try sessionSize(in: vault))
            let (facade, floorTime) = try await refreshCost(client, backend: backend, clock: clock, floor: floor)
            print("### OpenID refresh: accessToken() with an expired token vs its floor (medians of \(refreshes))\n")
            print("The floor does what a refresh cannot skip, with no client code: the bare refresh POST, one durable")
            print("vault commit of the session's size, and one RS256 verification of the new ID token (jwt-kit). Target 1.1×.\n")
            print("| refresh (OpenIDClient, vault store) | floor | ratio |")
            print("|---:|---:|---:|")
            print("| \(Measurement.format(facade)) | \(Measurement.format(floorTime)) | \(Measurement.ratio(facade, floorTime)) |")
            print()
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// `accessToken()` with an expired access token (lock file, reading the session, the POST,
    /// verifying the new ID token, storing the rotated refresh token durably) against its
    /// floor, each spending its own rotating refresh token.
    static func refreshCost(_ client: OpenIDClient, backend: DevBackend, clock: ManualClock, floor: RefreshFloor) async throws -> (Double, Double) {
        try await AuthBenchmark.alternatingMedians(
            count: refreshes, warmup: warmup,
            subject: {
                clock.advance(by: backend.configuration.tokenLifetime + 1)
                _ = try await client.accessToken()
            },
            floor: { try await floor.refresh() })
    }

    /// The size of the stored OpenID session, the one item of service `coffer.openid`.
    static func sessionSize(in vault: Vault) throws -> Int {
        guard let item = try vault.items(matching: ItemQuery(service: "coffer.openid")).first, let secret = try vault.secret(for: item.id) else {
            throw BenchmarkFailure("no stored OpenID session")
        }
        return secret.count
    }

    /// What a refresh cannot skip, done with no client code: the refresh POST, one durable vault
    /// commit of the session's size, one RS256 verification of the reply's ID token.
    final class RefreshFloor {
        let backend: DevBackend
        let vault: Vault
        let sessionBytes: Int
        let keys: JWTKeyCollection
        var refreshToken: String

        init(backend: DevBackend, vault: Vault, sessionBytes: Int) async throws {
            self.backend = backend
            self.vault = vault
            self.sessionBytes = sessionBytes
            let jwks = try await OpenIDBenchmark.get(backend.jwksURL)
            keys = try await JWTKeyCollection().add(jwksJSON: jwks)
            refreshToken = try await rawLogin(backend: backend)
        }

        func refresh() async throws {
            let reply = try await post(backend.tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)])
            guard let rotated = reply["refresh_token"] as? String, let idToken = reply["id_token"] as? String else {
                throw BenchmarkFailure("no refresh token or ID token: \(reply.keys.sorted())")
            }
            refreshToken = rotated
            _ = try await keys.verify(idToken, as: FloorClaims.self)
            try vault.set(Data(repeating: 0x2A, count: sessionBytes), for: .genericPassword(service: "coffer-bench", account: "floor"))
        }
    }

    /// The claims the floor's verification decodes; jwt-kit checks the signature, this only `exp`.
    struct FloorClaims: JWTPayload {
        let exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func get(_ url: URL) async throws -> String {
        let response = try await Authorization.defaultHTTPClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw BenchmarkFailure("\(url.path) answered \(response.status.code)") }
        return String(buffer: bytes)
    }

    /// A device login, approved through the dev backend's test endpoint.
    static func logIn(_ client: OpenIDClient, backend: DevBackend) async throws {
        let login = try await client.startDeviceLogin()
        _ = try await approve(login.authorization.userCode, backend: backend)
        _ = try await login.complete()
    }

    /// A refresh token obtained with plain HTTP: the device grant, approved through the dev
    /// backend's test endpoint.
    static func rawLogin(backend: DevBackend) async throws -> String {
        let device = try await post(backend.issuer.appendingPathComponent("device"), [("client_id", clientID), ("scope", "openid offline_access")])
        guard let deviceCode = device["device_code"] as? String, let userCode = device["user_code"] as? String else {
            throw BenchmarkFailure("no device code: \(device)")
        }
        _ = try await approve(userCode, backend: backend)
        return try await tokenPOST(
            [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode), ("client_id", clientID)],
            backend: backend)
    }

    static func approve(_ userCode: String, backend: DevBackend) async throws -> [String: Any] {
        try await post(backend.issuer.appendingPathComponent("device/approve"), [("user_code", userCode), ("user", user)])
    }

    /// POSTs a grant to the token endpoint and returns the refresh token of the reply.
    static func tokenPOST(_ form: [(String, String)], backend: DevBackend) async throws -> String {
        let reply = try await post(backend.tokenEndpoint, form)
        guard let refreshToken = reply["refresh_token"] as? String else { throw BenchmarkFailure("no refresh token: \(reply.keys.sorted())") }
        return refreshToken
    }

    static func post(_ url: URL, _ form: [(String, String)]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(.init(string: FormEncoding.encode(form)))
        let response = try await Authorization.defaultHTTPClient.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200, let object = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] else {
            throw BenchmarkFailure("\(url.path) answered \(response.status.code)")
        }
        return object
    }
}
