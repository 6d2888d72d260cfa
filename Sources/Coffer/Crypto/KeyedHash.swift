import CSodium

/// Keyed BLAKE2b (`crypto_generichash` with a key), used for blind indexes.
enum KeyedHash {
    static func hash(_ message: [UInt8], key: SecureBytes, outputLength: Int = 32) -> [UInt8] {
        Sodium.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: outputLength) { out, initialized in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    out.baseAddress!, outputLength,
                    message, UInt64(message.count),
                    keyBytes.uint8Base, keyBytes.count)
            }
            initialized = outputLength
        }
    }
}
