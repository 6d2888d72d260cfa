import Glibc

/// The one way Coffer zeroes memory that held a secret: `explicit_bzero`, which the compiler
/// may not drop as a dead store.
package enum SecretMemory {
    /// Zeroes `buffer`.
    package static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }

    /// Zeroes `count` bytes at `pointer`.
    package static func zero(_ pointer: UnsafeMutableRawPointer, count: Int) {
        zero(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Zeroes every byte of `bytes`, in place: the common case, with no generic dispatch.
    package static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
    }

    /// Zeroes every byte of `bytes`, in place (`[UInt8]`, `Data`, `ArraySlice<UInt8>`): their
    /// storage is contiguous. A collection whose storage is not is zeroed element by element.
    package static func zero<Bytes: MutableCollection<UInt8>>(_ bytes: inout Bytes) {
        let zeroed: Void? = bytes.withContiguousMutableStorageIfAvailable { zero(UnsafeMutableRawBufferPointer($0)) }
        guard zeroed == nil else { return }
        for index in bytes.indices { bytes[index] = 0 }
    }

    /// Zeroes the bytes of `value` itself (a C struct holding key material, such as a hash state).
    package static func zero<Value>(bytesOf value: inout Value) {
        withUnsafeMutableBytes(of: &value) { zero($0) }
    }
}
