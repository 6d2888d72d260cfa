/// The field layout that item records, program encodings and audit entries share
/// (docs/vault-format.md, 5.3): `u8(tag) || u32be(length) || value`, tags in ascending order.
enum TaggedFields {
    /// Appends one field.
    static func append(_ tag: UInt8, _ value: some Collection<UInt8>, to out: inout [UInt8]) {
        out.append(tag)
        withUnsafeBytes(of: UInt32(value.count).bigEndian) { out.append(contentsOf: $0) }
        if value.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil { out.append(contentsOf: value) }
    }

    /// Whether `bytes` are valid UTF-8, found without making a string.
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Walks the fields of `bytes`, enforcing the ordering rules: tags strictly ascending, except
    /// that a tag in `repeatable` may follow itself. Every violation, and a field running past
    /// the end, is ``CofferError/integrityFailure``.
    struct Reader {
        private let bytes: ArraySlice<UInt8>
        private let repeatable: [UInt8]
        private var offset: Int
        private var lastTag: UInt8?

        init(_ bytes: ArraySlice<UInt8>, repeatable: [UInt8] = []) {
            self.bytes = bytes
            self.repeatable = repeatable
            offset = bytes.startIndex
        }

        /// Where the next field starts, as an index of the bytes given.
        var position: Int { offset }

        mutating func next() throws(CofferError) -> (tag: UInt8, value: ArraySlice<UInt8>)? {
            guard offset < bytes.endIndex else { return nil }
            guard bytes.endIndex - offset >= 5 else { throw .integrityFailure }
            let tag = bytes[offset]
            if let lastTag, !(tag > lastTag || (tag == lastTag && repeatable.contains(tag))) { throw .integrityFailure }
            let length = Int(bytes[(offset + 1)..<(offset + 5)].reduce(0) { $0 << 8 | UInt32($1) })
            guard bytes.endIndex - offset - 5 >= length else { throw .integrityFailure }
            let value = bytes[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            lastTag = tag
            return (tag, value)
        }
    }
}
