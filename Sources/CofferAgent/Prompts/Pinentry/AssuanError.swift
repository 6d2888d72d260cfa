/// An `ERR` reply: a libgpg-error code (its source in the top byte, the code in the low 16
/// bits) and the server's text.
package struct AssuanError: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: UInt32
    package let text: String

    package init(code: UInt32, text: String) {
        self.code = code
        self.text = text
    }

    /// The code without its source (libgpg-error's `gpg_err_code`).
    package var errorCode: UInt32 { code & 0xFFFF }

    /// `GPG_ERR_CANCELED`: the person cancelled (pinentry: `ERR 83886179`, source 5).
    package static let cancelled: UInt32 = 99
    /// `GPG_ERR_NOT_CONFIRMED`: the person chose "not OK" (pinentry's `SETNOTOK` button).
    package static let notConfirmed: UInt32 = 114
    /// `GPG_ERR_TIMEOUT`: pinentry's own `SETTIMEOUT` passed with no answer.
    package static let timeout: UInt32 = 62

    /// Whether this is the person's "no": cancelled, not confirmed, or no answer in time.
    package var isRefusal: Bool {
        [Self.cancelled, Self.notConfirmed, Self.timeout].contains(errorCode)
    }

    package var description: String { "ERR \(code) \(text)" }
}
