import Foundation
import X509

/// The certificate a Mobile Client Access server issues at registration, checked as the SDKs
/// check it: an X.509 certificate (base64 DER) for the client's own public key, valid five
/// minutes from now (Android's `CertificatesUtility.checkValidityWithPublicKey`; iOS
/// `SecurityUtils.checkCertificatePublicKeyValidity`). Its issuer is not verified: the SDKs pin
/// no authority, and the certificate only confirms the registration.
enum ClientCertificate {
    /// How far ahead the certificate must still be valid.
    static let validityMargin: TimeInterval = 300

    static func check(_ base64: String, holds key: ClientKey, at now: Date) throws(AuthError) {
        guard let der = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !der.isEmpty else {
            throw .malformedResponse(reason: "the certificate is not base64")
        }
        let certificate: Certificate
        do { certificate = try Certificate(derEncoded: Array(der)) } catch {
            throw .malformedResponse(reason: "the certificate is not X.509")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw .untrustedResponse(reason: "the registration certificate is for another key")
        }
        let checkedAt = now.addingTimeInterval(validityMargin)
        guard certificate.notValidBefore <= checkedAt, checkedAt <= certificate.notValidAfter else {
            throw .untrustedResponse(reason: "the registration certificate is not valid now")
        }
    }
}
