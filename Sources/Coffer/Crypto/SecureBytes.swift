import CSodium

/// Secret bytes held in guarded memory.
///
/// The memory comes from `sodium_malloc`: it is surrounded by guard pages, locked
/// against swapping where the system allows, made read-only once filled, and zeroed
/// when the last reference goes away. Equality is constant-time, and neither
/// `description` nor `debugDescription` shows the contents.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked: the buffer is written only inside `init` and read-only afterwards.
    private let base: UnsafeMutableRawPointer
    /// The number of bytes.
    public let count: Int

    /// Allocates `count` guarded bytes and lets `initialize` fill them, for example straight from
    /// a file descriptor, so the secret never passes through ordinary memory. If `initialize`
    /// throws, the bytes are zeroed and freed.
    public init<E: Error>(count: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        Sodium.ensureInitialized()
        guard let pointer = sodium_malloc(Swift.max(count, 1)) else {
            fatalError("sodium_malloc: out of memory")
        }
        do {
            try initialize(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        } catch {
            sodium_free(pointer)
            throw error
        }
        sodium_mprotect_readonly(pointer)
        self.base = pointer
        self.count = count
    }

    /// Copies `bytes` into guarded memory. Wipe the source yourself if it is yours to wipe.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// Fresh random bytes from the system CSPRNG (`randombytes_buf`).
    public static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let address = buffer.baseAddress { randombytes_buf(address, buffer.count) }
        }
    }

    /// Whether the bytes are valid UTF-8 (strict: no overlong forms, surrogates or truncated
    /// sequences). Checked in place, without making a `String`.
    public var isValidUTF8: Bool {
        withUnsafeBytes { bytes in
            var iterator = bytes.makeIterator()
            var decoder = Unicode.UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }

    /// Whether every byte is ASCII.
    public var isASCII: Bool {
        withUnsafeBytes { $0.allSatisfy { $0 < 0x80 } }
    }

    deinit {
        // sodium_free makes the region writable, zeroes it and unmaps it.
        sodium_free(base)
    }

    /// Calls `body` with the bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}

extension SecureBytes: Equatable {
    /// Constant-time comparison (`sodium_memcmp`); only the lengths are compared in variable time.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return sodium_memcmp(lhs.base, rhs.base, lhs.count) == 0
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .class) }
}
