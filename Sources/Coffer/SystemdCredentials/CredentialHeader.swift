import FoundationEssentials

/// The clear header of a `systemd-creds` credential, read only for what `coffer slots` shows:
/// which keys encrypted it and which PCRs bind it. Nothing here is secret or checked for
/// security; `systemd-creds decrypt` checks the credential itself.
///
/// Layout (systemd's `src/shared/creds-util.[ch]`, little-endian): a 16-byte id naming the
/// keys, then `u32 key_size, u32 block_size, u32 iv_size, u32 tag_size`, the IV padded to a
/// multiple of 8, and, for credentials that involve a TPM2, `u64 pcr_mask` first of the TPM2
/// header.
struct CredentialHeader {
    let keySource: SystemdCredentials.KeySource
    let pcrs: [Int]

    /// systemd's ids of the three kinds Coffer makes: host key, TPM2, both.
    private static let ids: [[UInt8]: SystemdCredentials.KeySource] = [
        [0x5a, 0x1c, 0x6a, 0x86, 0xdf, 0x9d, 0x40, 0x96, 0xb1, 0xd5, 0xa6, 0x5e, 0x08, 0x62, 0xf1, 0x9a]: .host,
        [0x0c, 0x7c, 0xc0, 0x7b, 0x11, 0x76, 0x45, 0x91, 0x9c, 0x4b, 0x0b, 0xea, 0x08, 0xbc, 0x20, 0xfe]: .tpm2,
        [0x93, 0xa8, 0x94, 0x09, 0x48, 0x74, 0x44, 0x90, 0x90, 0xca, 0xf2, 0xfc, 0x93, 0xca, 0xb5, 0x53]: .hostAndTPM2,
    ]

    /// Reads the header of a credential as `systemd-creds encrypt` writes it (Base64, or the
    /// raw bytes); an unknown or short one reads as ``SystemdCredentials/KeySource/unknown``.
    init(credential: [UInt8]) {
        let bytes = Data(base64Encoded: Data(credential), options: .ignoreUnknownCharacters).map { [UInt8]($0) } ?? credential
        guard bytes.count >= 32, let source = Self.ids[Array(bytes[0..<16])] else {
            (keySource, pcrs) = (.unknown, [])
            return
        }
        keySource = source
        guard source != .host else {
            pcrs = []
            return
        }
        let ivSize = Int(Self.littleEndian(bytes, at: 24, width: 4))
        let maskOffset = 32 + (ivSize + 7) / 8 * 8
        guard ivSize <= 64, bytes.count >= maskOffset + 8 else {
            pcrs = []
            return
        }
        let mask = Self.littleEndian(bytes, at: maskOffset, width: 8)
        pcrs = (0..<24).filter { mask & (1 << UInt64($0)) != 0 }
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
