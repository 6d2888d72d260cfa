import CofferTestSupport
import CofferAuth
@testable import CofferDevBackend
import Foundation
import XCTest

/// The dev backend's Mobile Client Access authorization server and custom realm over loopback.
final class ClientAccessRoutesTests: XCTestCase {
    var backend: DevBackend!
    var client: RawClient { RawClient(backend: backend) }
    let apps = "/imf-authserver/authorization/v1/apps/coffer-tenant/"

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }

    /// The realm challenges (401 WL-Composite-Challenge), refuses a wrong answer (403), and redirects a right one with a code and the userIdentity; the token opens /mca/protected.
    func testRealmChallengeAnswerAndToken() async throws {
        let registration = try await client.post(apps + "clients/instance", json: ["application": ["id": "tests"]])
        let id = try XCTUnwrap(registration.json?["client_id"]?.stringValue)
        let basic = BasicCredentials(user: id, password: registration.json?["client_secret"]?.stringValue ?? "").headerValue
        let authorize = apps + "authorization?response_type=code&client_id=\(id)&redirect_uri=r"

        let protectedWithout = try await client.send(.GET, "/mca/protected")
        XCTAssertEqual(protectedWithout.status, 401)
        XCTAssertEqual(protectedWithout.headers["www-authenticate"], #"Bearer realm="imfAuthentication""#)

        let challenge = try await client.send(.GET, authorize, backendID: nil)
        XCTAssertEqual(challenge.status, 401)
        XCTAssertEqual(challenge.headers["www-authenticate"], "WL-Composite-Challenge")
        XCTAssertNotNil(challenge.json?["challenges"]?["customRealm"]?["text"]?.stringValue)

        let wrong = try await client.send(.GET, authorize, authorization: #"Bearer {"customRealm":{"username":"demo","password":"x"}}"#, backendID: nil)
        XCTAssertEqual(wrong.status, 403)
        XCTAssertEqual(wrong.json?["failures"]?["customRealm"]?["reason"], "wrong user name or password")

        let right = try await client.send(
            .GET, authorize, authorization: #"Bearer {"customRealm":{"username":"demo","password":"demo-password"}}"#, backendID: nil)
        XCTAssertEqual(right.status, 302)
        let location = try XCTUnwrap(right.headers["location"].flatMap(URLComponents.init(string:)))
        let query = Dictionary(FormEncoding.decode(location.percentEncodedQuery ?? "")!.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let code = try XCTUnwrap(query["code"])
        let result = try XCTUnwrap(query["wl_result"].flatMap { JSONValue(parsing: Data($0.utf8)) })
        XCTAssertEqual(result["successes"]?["customRealm"]?["userIdentity"]?["id"], "demo")

        let token = try await client.send(.POST, apps + "token", authorization: basic, backendID: nil,
                                          form: "grant_type=authorization_code&code=\(code)&redirect_uri=r")
        let bearer = "Bearer " + (token.json?["access_token"]?.stringValue ?? "")
        let protected = try await client.send(.GET, "/mca/protected", authorization: bearer)
        XCTAssertEqual(protected.status, 200)
        XCTAssertEqual(protected.json?["userIdentity"]?["authBy"], "customRealm")
        let mobileFirst = try await client.send(.GET, "/mfp/protected", authorization: bearer)
        XCTAssertEqual(mobileFirst.status, 401, "an MCA token does not open MobileFirst resources")
    }
}
