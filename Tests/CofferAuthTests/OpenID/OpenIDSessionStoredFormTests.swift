@testable import CofferAuth
import Foundation
import XCTest

/// The stored form of an OpenID session, written by hand for speed, is the JSON value that the
/// session's `Codable` encoding gives (`JSONEncoder.sessions`), and reads back as the same session;
/// a member added to the session and not to the stored form fails here.
final class OpenIDSessionStoredFormTests: XCTestCase {
    private let full = OpenIDSession(
        issuer: "https://issuer.example/\"quoted\"\\path", clientID: "native-client", profile: "work\nline",
        refreshToken: "refresh/token+value", accessToken: AccessToken(
            value: "access.token", issuedAt: Date(timeIntervalSince1970: 1_764_300_000.125), expiresAt: Date(timeIntervalSince1970: 1_764_303_600),
            idToken: "header.payload.signature"),
        scope: "openid offline_access", identity: AuthenticatedUser(
            id: "user-1", name: "Ada \u{1} Lovelace é", preferredUsername: "ada", email: "ada@example.com",
            authenticatedAt: Date(timeIntervalSince1970: 1_764_299_999.5), authenticatedBy: "pwd"),
        apiOrigins: ["https://api.example", "http://127.0.0.1:8080"])

    private let bare = OpenIDSession(
        issuer: "https://issuer.example", clientID: "c", profile: "default", refreshToken: nil, accessToken: nil,
        scope: nil, identity: nil, apiOrigins: [])

    func testTheStoredFormIsTheCodableEncodingsValueAndReadsBack() throws {
        for session in [full, bare, OpenIDSession(
            issuer: "i", clientID: "c", profile: "p", refreshToken: "r", accessToken: nil, scope: nil,
            identity: AuthenticatedUser(id: "only-id"), apiOrigins: ["https://a"])] {
            let stored = try session.storedForm()
            XCTAssertEqual(JSONValue(parsing: stored), JSONValue(parsing: try JSONEncoder.sessions.encode(session)))
            XCTAssertEqual(try JSONDecoder.sessions.decode(OpenIDSession.self, from: stored), session)
        }
    }

    /// A date JSON cannot hold is an encoding error, not a crash or a stored `inf`.
    func testADateBeyondJSONIsRefused() {
        var session = full
        session.accessToken = AccessToken(value: "a", issuedAt: Date(timeIntervalSince1970: .infinity), expiresAt: Date())
        XCTAssertThrowsError(try session.storedForm())
    }
}
