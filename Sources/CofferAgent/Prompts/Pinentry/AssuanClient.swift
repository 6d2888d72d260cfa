import CofferProcess
import Glibc

/// The client's side of an Assuan conversation with a server running as a child (pinentry):
/// one command at a time, each reply read to its `OK` or `ERR`.
///
/// Lines are read into `buffer` and data lines decoded into ``data``: memory the caller owns
/// and keeps for the client's life (secure memory: a passphrase passes through both). A line
/// is zeroed once read.
package struct AssuanClient {
    private let conversation: ChildConversation
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    /// The data lines of the last reply, decoded.
    package private(set) var data: AssuanData

    /// The room a line needs in `buffer`: the longest line, a carriage return and a line feed.
    package static let bufferSize = AssuanText.maxLineLength + 2

    /// `buffer` must hold at least ``bufferSize`` bytes.
    package init(conversation: ChildConversation, buffer: UnsafeMutableRawBufferPointer, data: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= Self.bufferSize, "an Assuan line buffer of \(buffer.count) bytes")
        self.conversation = conversation
        self.buffer = buffer
        self.data = AssuanData(data)
    }

    /// Reads the server's greeting: `OK`, after any status or comment lines.
    package mutating func greeting() throws(AssuanFailure) {
        while true {
            switch try readLine() {
            case .ok: return
            case .status, .comment: continue
            default: throw .protocolError(.noGreeting)
            }
        }
    }

    /// Sends `verb` with `argument` (escaped, ``AssuanText/command(_:_:)``) and reads the reply
    /// to its end: the `OK` line's text, or the `ERR`. Status and comment lines are passed over;
    /// data lines go to ``data``, cleared first; an `INQUIRE` is answered `CAN` (Coffer has no
    /// data to give), and the reply goes on.
    package mutating func transact(_ verb: String, _ argument: String? = nil) throws(AssuanFailure) -> Result<String, AssuanError> {
        data.clear()
        try send(AssuanText.command(verb, argument))
        while true {
            switch try readLine() {
            case .ok(let text): return .success(text)
            case .error(let error): return .failure(error)
            case .data, .status, .comment: continue
            case .inquire: try send(AssuanText.command("CAN"))
            }
        }
    }

    private func send(_ line: [UInt8]) throws(AssuanFailure) {
        let sent = line.withUnsafeBytes { bytes in Result { () throws(ChildConversationFailure) in try conversation.send(bytes) } }
        if case .failure(let error) = sent { throw AssuanFailure(error) }
    }

    /// The next line the server sends, waiting for it.
    private mutating func readLine() throws(AssuanFailure) -> AssuanLine {
        let feed = UInt8(ascii: "\n")
        while true {
            if let end = buffer[..<filled].firstIndex(of: feed) {
                let line: AssuanLine
                do throws(AssuanProtocolError) {
                    line = try AssuanLine(UnsafeRawBufferPointer(rebasing: buffer[..<end]), data: &data)
                } catch {
                    throw .protocolError(error)
                }
                consume(end + 1)
                return line
            }
            guard filled < buffer.count else { throw .protocolError(.lineTooLong) }
            let count: Int
            do throws(ChildConversationFailure) {
                count = try conversation.receive(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            } catch {
                throw AssuanFailure(error)
            }
            guard count > 0 else { throw .closed }
            filled += count
        }
    }

    /// Drops the first `count` bytes: what follows moves to the front, and the bytes it leaves
    /// behind are zeroed.
    private mutating func consume(_ count: Int) {
        let base = buffer.baseAddress!
        let remaining = filled - count
        if remaining > 0 { memmove(base, base + count, remaining) }
        memset(base + remaining, 0, filled - remaining)
        filled = remaining
    }
}
