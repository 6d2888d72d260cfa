/// One line of an Assuan server's reply (libassuan's manual, "Server responses"): `OK`
/// [text], `ERR` code [text], `D` data, `S` keyword [text], `#` comment, `INQUIRE` keyword
/// [parameters]. A reply is any number of `D`, `S` and `#` lines, then `OK` or `ERR`; an
/// `INQUIRE` asks the client for data first (answered `D`…`END`, or `CAN`).
package enum AssuanLine: Sendable, Equatable {
    case ok(String)
    case error(AssuanError)
    /// A data line: its bytes, percent-decoded, went to the caller's ``AssuanData``.
    case data
    case status(keyword: String, text: String)
    case comment
    case inquire(keyword: String, parameters: String)

    /// Reads `line` (without its line feed; a carriage return before it is dropped). A data
    /// line's bytes are decoded into `data`, and only there: they may be a passphrase.
    package init(_ line: UnsafeRawBufferPointer, data: inout AssuanData) throws(AssuanProtocolError) {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        guard line.count <= AssuanText.maxLineLength else { throw .lineTooLong }
        let space = line.firstIndex(of: UInt8(ascii: " "))
        let word = String(decoding: line[..<(space ?? line.endIndex)], as: UTF8.self)
        let rest = UnsafeRawBufferPointer(rebasing: line[(space.map { $0 + 1 } ?? line.endIndex)...])
        func text() -> String { String(decoding: rest, as: UTF8.self) }
        if word.hasPrefix("#") {
            self = .comment
            return
        }
        switch word {
        case "OK": self = .ok(text())
        case "ERR":
            let (code, description) = Self.split(text())
            guard let code = UInt32(code) else { throw .malformed }
            self = .error(AssuanError(code: code, text: description))
        case "D" where space != nil:
            try Self.decode(rest, into: &data)
            self = .data
        case "S" where space != nil:
            let (keyword, text) = Self.split(text())
            self = .status(keyword: keyword, text: text)
        case "INQUIRE" where space != nil:
            let (keyword, parameters) = Self.split(text())
            self = .inquire(keyword: keyword, parameters: parameters)
        default:
            throw .malformed
        }
    }

    /// Appends the data line's bytes, percent-decoded, to `data`; on a failure, none of them.
    private static func decode(_ line: UnsafeRawBufferPointer, into data: inout AssuanData) throws(AssuanProtocolError) {
        let start = data.count
        do throws(AssuanProtocolError) {
            var bytes = line.makeIterator()
            while let byte = bytes.next() {
                guard byte == UInt8(ascii: "%") else {
                    try data.append(byte)
                    continue
                }
                guard let high = bytes.next().flatMap(AssuanText.hexValue), let low = bytes.next().flatMap(AssuanText.hexValue) else {
                    throw .badEscape
                }
                try data.append(high << 4 | low)
            }
        } catch {
            data.truncate(to: start)
            throw error
        }
    }

    /// `text`'s first word, and what follows the space after it.
    private static func split(_ text: String) -> (String, String) {
        guard let space = text.firstIndex(of: " ") else { return (text, "") }
        return (String(text[..<space]), String(text[text.index(after: space)...]))
    }
}
