import Coffer
@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// The bytes of a `keep login` request (docs/agent.md, "The token broker"): the kind of login is
/// the `format` of its settings, read strictly. OpenID logins of format 1, as programs sent them
/// before mobile backends' logins could be kept, are still read; anything else the agent does
/// not know is ``CofferError/invalidArgument(reason:)``, and nothing is stored.
final class BrokeredLoginKindTests: XCTestCase {
    private let folder = TemporaryFolder()

    private static let backend = MobileBackend(
        baseURL: URL(string: "http://127.0.0.1:9/")!, backendID: "hub",
        authentication: .oauth(tokenEndpoint: URL(string: "http://127.0.0.1:9/oauth2/v1/token")!, clientID: "app", clientSecret: "app secret"))

    private static func session(binding: BackendBinding = backend.binding) -> StoredSession {
        let now = Date()
        return StoredSession(
            binding: binding, method: .oauth, userName: "demo",
            token: AccessToken(value: "access", issuedAt: now, expiresAt: now.addingTimeInterval(60)), refreshToken: "refresh")
    }

    private static func bytes(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

    private func vault() throws -> Vault {
        try Vault.create(at: folder.file("kinds.vault"), with: .key(.random(count: 32)))
    }

    /// A login of format 1 as an earlier Coffer sent it (its JSON written out here, not made by
    /// this Coffer's encoder) is an OpenID login, and is kept as one.
    func testFormat1OpenIDBytesAreStillAnOpenIDLogin() throws {
        let format1 = #"""
            {"session":{"apiOrigins":["https://id.example.com"],"clientID":"app","format":1,"issuer":"https://id.example.com",\#
            "profile":"default","refreshToken":"refresh","scope":"openid"},\#
            "settings":{"clientID":"app","format":1,"provider":{"authorizationEndpoint":"https://id.example.com/authorize",\#
            "idTokenSigningAlgorithms":["RS256"],"issuer":"https://id.example.com","issuerInAuthorizationResponse":false,\#
            "tokenEndpoint":"https://id.example.com/token"}}}
            """#
        XCTAssertEqual(try BrokeredLoginKind(login: Self.bytes(format1)), .openID)
        let vault = try vault()
        try BrokeredLogin.keep(Self.bytes(format1), profile: "default", in: vault, owner: nil, removing: [])
        XCTAssertEqual(try BrokeredLoginKind.stored(profile: "default", in: vault), .openID)
        XCTAssertEqual(try BrokeredLogin.settings(profile: "default", in: vault)?.clientID, "app")
        XCTAssertNil(try BrokeredBackendLogin.settings(profile: "default", in: vault), "not a mobile backend's login")
    }

    /// A mobile backend's login is format 2, and is kept as one: its session under the agent's
    /// reserved service, refresh token included.
    func testAMobileBackendLoginIsFormat2() throws {
        let login = try BrokeredBackendLogin(backend: Self.backend, session: Self.session()).encoded()
        XCTAssertEqual(try BrokeredLoginKind(login: login), .mobileBackend)
        let vault = try vault()
        try BrokeredBackendLogin.keep(login, profile: "hub", in: vault, owner: nil, removing: [])
        XCTAssertEqual(try BrokeredLoginKind.stored(profile: "hub", in: vault), .mobileBackend)
        XCTAssertEqual(try BrokeredBackendLogin.settings(profile: "hub", in: vault)?.backend, Self.backend)
        XCTAssertNil(try BrokeredLogin.settings(profile: "hub", in: vault), "not an OpenID login")
        let stored = try XCTUnwrap(try vault.secret(for: BrokeredBackendLogin.sessionID(profile: "hub")))
        XCTAssertEqual(try JSONDecoder.sessions.decode(StoredSession.self, from: stored).refreshToken, "refresh")
        XCTAssertEqual(BrokeredBackendLogin.sessionID(profile: "hub").service, BrokeredSessions.service)
    }

    /// Garbage, another format, a login with no format and a mobile backend login that does
    /// not hold together (a session of another backend, an HTTP Basic backend, a password kept)
    /// are refused with ``CofferError/invalidArgument(reason:)``, and the vault stays empty.
    func testBytesThatAreNoLoginAreATypedError() throws {
        for garbage in ["", "not json", "{}", #"{"settings":{}}"#, #"{"settings":{"format":3}}"#, #"{"settings":{"format":"1"}}"#] {
            XCTAssertThrowsError(try BrokeredLoginKind(login: Self.bytes(garbage)), garbage) { error in
                guard case CofferError.invalidArgument = error else { return XCTFail("\(garbage): \(error)") }
            }
        }
        let vault = try vault()
        var withPassword = Self.session()
        withPassword.password = "password"
        var basic = Self.backend
        basic.authentication = .httpBasic
        let other = BackendBinding(baseURL: URL(string: "http://127.0.0.1:10")!, backendID: "hub", version: nil)
        let wrong = [
            try BrokeredBackendLogin(backend: Self.backend, session: Self.session(binding: other)).encoded(),
            try BrokeredBackendLogin(backend: basic, session: Self.session()).encoded(),
            try BrokeredBackendLogin(backend: Self.backend, session: withPassword).encoded(),
            Self.bytes(#"{"settings":{"format":2},"session":{}}"#),
        ]
        for bytes in wrong {
            XCTAssertThrowsError(try BrokeredBackendLogin.keep(bytes, profile: "hub", in: vault, owner: nil, removing: [])) { error in
                guard case CofferError.invalidArgument = error else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNil(try BrokeredLoginKind.stored(profile: "hub", in: vault))
        XCTAssertTrue(try vault.items(matching: ItemQuery()).isEmpty)
    }

    /// The programs a login names (`AgentTokenBroker(_:allowing:)`; `coffer login` names `coffer`)
    /// go on its settings item's access list, the owner being the program that handed it over,
    /// for either kind; more than eight, or a path that is not absolute, is
    /// ``CofferError/invalidArgument(reason:)``, and nothing is stored.
    func testTheProgramsALoginNamesGoOnItsAccessList() throws {
        let owner = try Program(executablePath: Array("/usr/bin/coffer-auth".utf8))
        let vault = try vault()
        let backend = try BrokeredBackendLogin(backend: Self.backend, session: Self.session(), allowed: ["/usr/bin/coffer"]).encoded()
        try BrokeredBackendLogin.keep(backend, profile: "hub", in: vault, owner: owner, removing: [])
        let access = try XCTUnwrap(try vault.access(for: BrokeredSessions.settingsID(profile: "hub")))
        XCTAssertEqual(access.owner, owner)
        XCTAssertEqual(access.allowed, [try Program(executablePath: Array("/usr/bin/coffer".utf8))])

        for allowed in [(0..<9).map { "/usr/bin/tool\($0)" }, ["coffer"]] {
            let login = try BrokeredBackendLogin(backend: Self.backend, session: Self.session(), allowed: allowed).encoded()
            XCTAssertEqual(try BrokeredLoginKind(login: login), .mobileBackend)
            XCTAssertThrowsError(try BrokeredBackendLogin.keep(login, profile: "other", in: vault, owner: owner, removing: []), "\(allowed)") { error in
                guard case CofferError.invalidArgument = error else { return XCTFail("\(allowed): \(error)") }
            }
            XCTAssertNil(try BrokeredLoginKind.stored(profile: "other", in: vault), "nothing stored for \(allowed)")
        }
    }
}
