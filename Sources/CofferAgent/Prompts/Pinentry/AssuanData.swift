/// Where the data lines of a reply go, percent-decoded: memory the caller owns (secure memory,
/// for a passphrase), filled up to its size.
package struct AssuanData {
    private let buffer: UnsafeMutableRawBufferPointer
    /// How many bytes the data lines gave so far.
    package private(set) var count = 0

    package init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    mutating func append(_ byte: UInt8) throws(AssuanProtocolError) {
        guard count < buffer.count else { throw .dataTooLong }
        buffer[count] = byte
        count += 1
    }

    /// Forgets the data (zeroing it), for the next reply.
    package mutating func clear() {
        truncate(to: 0)
    }

    /// Forgets (zeroing them) the bytes past the first `length`.
    mutating func truncate(to length: Int) {
        guard length < count else { return }
        (buffer.baseAddress! + length).initializeMemory(as: UInt8.self, repeating: 0, count: count - length)
        count = length
    }

    /// The data so far.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer.prefix(count)) }
}
