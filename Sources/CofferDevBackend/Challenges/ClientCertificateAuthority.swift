import Crypto
import CryptoExtras
import Foundation
import X509

/// The MCA authorization server's certificate authority: it answers a client's registration with
/// an X.509 certificate for the client's public key, subject `UID=<client id>, DC=coffer-dev`, as
/// the SDKs read it (`CertificatesUtility.getClientIdFromCertificate`). Its key is made at start.
struct ClientCertificateAuthority: Sendable {
    private let key = P256.Signing.PrivateKey()
    private static let issuer = try! DistinguishedName { CommonName("Coffer dev backend MCA") }
    /// How long a certificate lasts.
    static let lifetime: TimeInterval = 365 * 86_400

    /// A certificate for `publicKey` and client `clientID`, valid from an hour before `now`, as base64 DER.
    func issue(for publicKey: _RSA.Signing.PublicKey, clientID: String, now: Date) throws -> String {
        let subject = DistinguishedName([
            RelativeDistinguishedName(.init(type: [0, 9, 2342, 19_200_300, 100, 1, 1], utf8String: clientID)),
            RelativeDistinguishedName(.init(type: .RDNAttributeType.domainComponent, utf8String: "coffer-dev")),
        ])
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Self.lifetime),
            issuer: Self.issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(key))
        return Data(try certificate.serializeAsPEM().derBytes).base64EncodedString()
    }
}
