import CSodium

/// Subkeys from a master key (`crypto_kdf_derive_from_key`, BLAKE2b-based).
enum KeyDerivation {
    /// Derives subkey `id` in an 8-byte ASCII `context`.
    static func subkey(_ id: UInt64, context: StaticString, from master: SecureBytes, length: Int = 32) -> SecureBytes {
        precondition(context.utf8CodeUnitCount == 8, "crypto_kdf contexts are 8 bytes")
        precondition(master.count == 32, "crypto_kdf master keys are 32 bytes")
        Sodium.ensureInitialized()
        return SecureBytes(count: length) { out in
            master.withUnsafeBytes { masterBytes in
                context.withUTF8Buffer { contextBytes in
                    contextBytes.withMemoryRebound(to: CChar.self) { ctx in
                        _ = crypto_kdf_derive_from_key(
                            out.baseAddress!.assumingMemoryBound(to: UInt8.self), length, id,
                            ctx.baseAddress!, masterBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
    }
}
