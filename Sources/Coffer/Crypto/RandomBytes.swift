import CSodium

/// Non-secret random bytes (salts, nonces, identifiers) from `randombytes_buf`.
package enum RandomBytes {
    package static func make(_ count: Int) -> [UInt8] {
        Sodium.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { randombytes_buf(base, count) }
            initialized = count
        }
    }
}
