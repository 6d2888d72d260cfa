import Foundation

/// Where a ``ChallengeClient`` gets its tokens, and which protocol it speaks there
/// (docs/protocol.md, sections 8 and 9).
///
/// ```swift
/// let mobileFirst = ChallengeServer.mobileFirst(URL(string: "https://mfp.example.com")!)
/// let clientAccess = ChallengeServer.mobileClientAccess(route: appRoute, tenantID: tenantID)
/// ```
public struct ChallengeServer: Sendable, Hashable, Codable {
    /// The protocol and its parameters.
    public enum Kind: Sendable, Hashable, Codable {
        /// IBM MobileFirst 8: endpoints under `{url}/{runtime}/api/`.
        case mobileFirst(runtime: String)
        /// IBM Mobile Client Access: the authorization server's endpoints under
        /// `{authorizationServer}/authorization/v1/apps/{tenantID}/`.
        case mobileClientAccess(tenantID: String, authorizationServer: URL)
    }

    /// The server (MobileFirst) or the application route (Mobile Client Access). Protected
    /// resources live below it, and access tokens are sent only to its origin.
    public var url: URL
    /// The protocol.
    public var kind: Kind
    /// The application id sent when the client registers.
    public var applicationID: String
    /// The application version sent when the client registers.
    public var applicationVersion: String

    /// A server at `url` speaking `kind`; the application id and version are sent at registration.
    public init(url: URL, kind: Kind, applicationID: String = "coffer", applicationVersion: String = "1.0") {
        self.url = url
        self.kind = kind
        self.applicationID = applicationID
        self.applicationVersion = applicationVersion
    }

    /// A MobileFirst 8 server at `url` with the runtime `runtime` (default `mfp`).
    public static func mobileFirst(
        _ url: URL, runtime: String = "mfp", applicationID: String = "coffer", applicationVersion: String = "1.0"
    ) -> ChallengeServer {
        ChallengeServer(url: url, kind: .mobileFirst(runtime: runtime), applicationID: applicationID, applicationVersion: applicationVersion)
    }

    /// A Mobile Client Access application at `route`, with the tenant (application GUID)
    /// `tenantID`. The authorization server defaults to `{route}/imf-authserver`.
    public static func mobileClientAccess(
        route: URL, tenantID: String, authorizationServer: URL? = nil,
        applicationID: String = "coffer", applicationVersion: String = "1.0"
    ) -> ChallengeServer {
        ChallengeServer(
            url: route,
            kind: .mobileClientAccess(tenantID: tenantID, authorizationServer: authorizationServer ?? route.appendingPathComponent("imf-authserver")),
            applicationID: applicationID, applicationVersion: applicationVersion)
    }

    /// What the stored client registration and tokens are bound to, as one line: the keychain
    /// account they are kept under unless the configuration names another.
    var storageKey: String {
        switch kind {
        case .mobileFirst(let runtime): "mobilefirst \(Self.trimmed(url)) \(runtime)"
        case .mobileClientAccess(let tenantID, let server): "mca \(Self.trimmed(url)) \(Self.trimmed(server)) \(tenantID)"
        }
    }

    private static func trimmed(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
