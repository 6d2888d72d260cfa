import Foundation
import JWTKit

/// The ID token of an MCA token reply (JWT, RS256, signed with the backend's provider key): the
/// client (`sub`), the application (`aud`), seconds-based times, and the `imf.user`,
/// `imf.device` and `imf.application` claims the resource validator reads
/// (`bms-mca-token-validation-strategy`, `buildSecurityContext`).
struct ClientAccessIDToken: JWTPayload {
    struct User: Codable, Sendable {
        let id: String
        let authBy: String
        let displayName: String
    }

    struct Device: Codable, Sendable {
        let id: String
        let platform: String
        let model: String
    }

    struct Application: Codable, Sendable {
        let id: String
        let version: String
    }

    let iss: String
    let sub: String
    let aud: String
    let iat: Int
    let exp: Int
    let user: User
    let device: Device
    let application: Application

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp
        case user = "imf.user", device = "imf.device", application = "imf.application"
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
