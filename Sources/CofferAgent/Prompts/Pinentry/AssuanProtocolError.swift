/// A server line that breaks Assuan's rules. Its description never shows a data line's bytes
/// (a passphrase travels in them).
package enum AssuanProtocolError: Error, Equatable, CustomStringConvertible {
    /// More than ``AssuanText/maxLineLength`` bytes before a line feed.
    case lineTooLong
    /// A line that is none of `OK`, `ERR`, `D`, `S`, `#` or `INQUIRE`, or one of them malformed.
    case malformed
    /// A `%` in a data line not followed by two hex digits.
    case badEscape
    /// More data than the reply may hold.
    case dataTooLong
    /// A first line other than `OK`.
    case noGreeting

    package var description: String {
        switch self {
        case .lineTooLong: "a line longer than \(AssuanText.maxLineLength) bytes"
        case .malformed: "an unexpected line"
        case .badEscape: "a bad %-escape in a data line"
        case .dataTooLong: "more data than expected"
        case .noGreeting: "no OK greeting"
        }
    }
}
