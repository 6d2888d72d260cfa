import CofferAgent

extension FuzzTarget {
    /// What a pinentry sends, line by line (``AssuanLine``), its data lines decoded into one
    /// 64-byte buffer as the pinentry prompter's are: each line reads or is refused with a typed
    /// error, and the data never outgrows its buffer nor the data lines that gave it.
    static let assuanReply = FuzzTarget(name: "assuan-reply") { bytes in
        let capacity = 64
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0)
        var data = AssuanData(memory)
        var dataBytes = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let before = data.count
            let parsed = line.withUnsafeBytes { try? AssuanLine($0, data: &data) }
            if parsed == .data { dataBytes += line.count - 2 }
            precondition(parsed == .data || data.count == before, "a line that is not data, or refused, changed the data")
            precondition(data.count <= min(capacity, dataBytes), "the data outgrew its buffer or its lines")
        }
    }
}
