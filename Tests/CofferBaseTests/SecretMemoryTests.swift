import CofferBase
import Foundation
import XCTest

/// ``SecretMemory/zero(_:)-(UnsafeMutableRawBufferPointer)``, the one call that zeroes a secret, zeroes in place
/// every form Coffer keeps one in: raw memory, byte arrays, `Data` (a slice of one too, and
/// nothing outside the slice), and a C struct's bytes.
final class SecretMemoryTests: XCTestCase {
    func testEachFormIsZeroedInPlace() {
        var array: [UInt8] = Array(1...64)
        let arrayAddress = array.withUnsafeBytes { $0.baseAddress }
        SecretMemory.zero(&array)
        XCTAssertEqual(array, [UInt8](repeating: 0, count: 64))
        XCTAssertEqual(array.withUnsafeBytes { $0.baseAddress }, arrayAddress, "the same storage, not a copy")

        var data = Data((1...200).map { UInt8($0) })
        SecretMemory.zero(&data)
        XCTAssertEqual(data, Data(count: 200))

        var whole = Data((1...10).map { UInt8($0) })
        var slice = whole[2..<5]
        whole = Data()
        SecretMemory.zero(&slice)
        XCTAssertEqual(Array(slice), [0, 0, 0])

        var parts: [UInt8] = Array(1...8)
        parts.withUnsafeMutableBytes { SecretMemory.zero(UnsafeMutableRawBufferPointer(rebasing: $0[2..<6])) }
        XCTAssertEqual(parts, [1, 2, 0, 0, 0, 0, 7, 8], "exactly the bytes given")

        var text: [CChar] = Array("COFFER_PASSPHRASE=secret".utf8CString)
        text.withUnsafeMutableBufferPointer { SecretMemory.zero($0.baseAddress!, count: $0.count - 1) }
        XCTAssertTrue(text.allSatisfy { $0 == 0 })

        var state = (UInt64(0x0102_0304_0506_0708), UInt32(9))
        SecretMemory.zero(bytesOf: &state)
        XCTAssertEqual(state.0, 0)
        XCTAssertEqual(state.1, 0)

        var empty: [UInt8] = []
        SecretMemory.zero(&empty)
        SecretMemory.zero(UnsafeMutableRawBufferPointer(start: nil, count: 0))
        XCTAssertEqual(empty, [])
    }
}
