/// One frame of the agent protocol (docs/agent.md): a kind and its fields.
///
/// `frame = u32be(length) || u8(version) || u8(kind) || field*`, each field
/// `u8(tag) || u32be(length) || value`.
package struct AgentMessage: Sendable, Hashable {
    package static let version: UInt8 = 1
    /// The largest body a frame may carry: 4 MiB.
    package static let maxBodyBytes = 4 << 20

    package var kind: UInt8
    package var fields: [Field]

    package struct Field: Sendable, Hashable {
        package let tag: UInt8
        package let value: [UInt8]

        package init(_ tag: UInt8, _ value: [UInt8]) {
            self.tag = tag
            self.value = value
        }
    }

    package init(kind: UInt8, fields: [Field] = []) {
        self.kind = kind
        self.fields = fields
    }

    /// The frame's bytes, length prefix included.
    package var frame: [UInt8] {
        var body: [UInt8] = [Self.version, kind]
        for field in fields {
            body.append(field.tag)
            body += bigEndian(UInt32(field.value.count))
            body += field.value
        }
        return bigEndian(UInt32(body.count)) + body
    }

    /// Parses a body (the frame without its length prefix). `nil` for any malformed body.
    package init?(body: [UInt8]) {
        guard body.count >= 2, body.count <= Self.maxBodyBytes, body[0] == Self.version else { return nil }
        kind = body[1]
        fields = []
        var offset = 2
        while offset < body.count {
            guard body.count - offset >= 5 else { return nil }
            let length = Int(readUInt32(body, at: offset + 1))
            guard body.count - offset - 5 >= length else { return nil }
            fields.append(Field(body[offset], Array(body[(offset + 5)..<(offset + 5 + length)])))
            offset += 5 + length
        }
    }

    /// The value of the one field `tag`; `nil` when absent. Throws when it repeats.
    package func single(_ tag: UInt8) throws(AgentProtocolError) -> [UInt8]? {
        let matching = fields.filter { $0.tag == tag }
        guard matching.count <= 1 else { throw AgentProtocolError("field \(tag) repeats") }
        return matching.first?.value
    }

    /// The values of every field `tag`, in order.
    package func all(_ tag: UInt8) -> [[UInt8]] {
        fields.filter { $0.tag == tag }.map(\.value)
    }
}

/// A frame that breaks the protocol's rules.
package struct AgentProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// `value`'s bytes, most significant first.
package func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// The big-endian `UInt32` at `offset` of `bytes` (which holds four bytes there).
package func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
}

/// `bytes` as a big-endian integer of exactly its width; `nil` for another length.
package func readInteger<T: FixedWidthInteger>(_ bytes: [UInt8], as _: T.Type) -> T? {
    guard bytes.count == MemoryLayout<T>.size else { return nil }
    return bytes.reduce(T.zero) { $0 << 8 | T($1) }
}
