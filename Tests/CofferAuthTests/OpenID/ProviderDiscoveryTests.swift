@testable import CofferAuth
import Foundation
import XCTest

final class ProviderDiscoveryTests: XCTestCase {
    /// OpenID Connect's location first (terminating slash removed), then RFC 8414's (inserted
    /// before the path), then RFC 8414 appended to the issuer.
    func testDocumentLocations() {
        XCTAssertEqual(ProviderDiscovery.documentURLs(for: URL(string: "https://id.example.com/realms/app/")!).map(\.absoluteString), [
            "https://id.example.com/realms/app/.well-known/openid-configuration",
            "https://id.example.com/.well-known/oauth-authorization-server/realms/app",
            "https://id.example.com/realms/app/.well-known/oauth-authorization-server",
        ])
        XCTAssertEqual(ProviderDiscovery.documentURLs(for: URL(string: "https://accounts.example.com")!).map(\.absoluteString), [
            "https://accounts.example.com/.well-known/openid-configuration",
            "https://accounts.example.com/.well-known/oauth-authorization-server",
        ])
    }

    /// The document must name the issuer exactly: a trailing slash or another host is untrusted.
    func testTheIssuerMustMatchExactly() throws {
        let issuer = URL(string: "https://id.example.com/o")!
        let document: [String: JSONValue] = ["issuer": "https://id.example.com/o", "token_endpoint": "https://id.example.com/o/token",
                                             "jwks_uri": "https://id.example.com/o/jwks", "authorization_response_iss_parameter_supported": true]
        let provider = try ProviderDiscovery.parse(document, issuer: issuer)
        XCTAssertEqual(provider.tokenEndpoint.absoluteString, "https://id.example.com/o/token")
        XCTAssertTrue(provider.issuerInAuthorizationResponse)
        for other in ["https://id.example.com/o/", "https://evil.example/o", "HTTPS://id.example.com/o"] {
            var forged = document
            forged["issuer"] = .string(other)
            XCTAssertThrowsError(try ProviderDiscovery.parse(forged, issuer: issuer)) { error in
                guard case .untrustedResponse = error as? AuthError else { return XCTFail("\(error)") }
            }
        }
        var noToken = document
        noToken["token_endpoint"] = nil
        XCTAssertThrowsError(try ProviderDiscovery.parse(noToken, issuer: issuer))
        var badURL = document
        badURL["jwks_uri"] = "javascript:alert(1)"
        XCTAssertThrowsError(try ProviderDiscovery.parse(badURL, issuer: issuer))
    }
}
