import XCTest
@testable import CofferSecretServiceProvider

/// GVariant values built from type strings the provider computes at run time.
final class VariantTests: XCTestCase {
    /// An array's element type comes from a Swift string that is not a literal, and the array
    /// has that type, empty or not; so does `isOfType`. The defect this guards against (the type
    /// string was bridged to a C string that lived only for the cast `G_VARIANT_TYPE` stands
    /// for, so GLib read it after it was gone) showed only under ThreadSanitizer, where `GetAll`
    /// crashed in `g_variant_new_array` (is_of_child_type): its regression test is
    /// `LockedCollectionTests.testALockedSearchListsAStandInThatRevealsNothing` under `make
    /// sanitize`, which failed every time before the fix. This test did not catch it.
    func testArraysHaveTheTypeTheirElementTypeStringNames() {
        for _ in 0..<1000 {
            let entry = ["{", "s", "v", "}"].joined(), object = String(["o"]), map = ["{", "ss", "}"].joined()
            XCTAssertEqual(Variant.array(of: entry, [Variant.dictionaryEntry(.string("k"), .boxed(.boolean(true)))]).typeString, "a{sv}")
            XCTAssertEqual(Variant.array(of: object, [.objectPath("/a"), .objectPath("/b")]).typeString, "ao")
            XCTAssertEqual(Variant.array(of: map, []).typeString, "a{ss}")
            XCTAssertTrue(Variant.array(of: entry, []).isOfType(["a", entry].joined()))
            XCTAssertFalse(Variant.array(of: object, []).isOfType(["a", map].joined()))
            XCTAssertEqual(Variant.objectPaths(["/a", "/b"]).typeString, "ao")
            XCTAssertEqual(Variant.stringMap([:]).typeString, "a{ss}")
        }
    }

    /// A byte array has type `ay` and holds its bytes. Under AddressSanitizer its type string
    /// was read after it was freed at every session's open (the literal "y" bridged to a
    /// temporary C string for the cast only): `make sanitize` (address) is its regression test,
    /// with 15 reports in the provider's tests before the fix and none after.
    func testByteArraysHaveTypeAyAndTheirBytes() {
        let bytes: [UInt8] = [0, 1, 0xfe, 0xff]
        XCTAssertEqual(Variant.bytes(bytes).typeString, "ay")
        XCTAssertEqual(Variant.bytes([]).typeString, "ay")
    }

    /// The cast that `G_VARIANT_TYPE` stands for is reached only through
    /// `Variant.withVariantType`, which keeps the C string alive for the whole GLib call: the
    /// two defects above were each a call of it that Swift gave a temporary C string.
    func testTheTypeCastIsCalledOnlyWhereItsStringLivesThroughTheCall() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        var calls: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains("coffer_variant_type(") && !line.contains("///") {
                calls.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        XCTAssertEqual(calls.count, 1, "\(calls)")
        XCTAssertTrue(calls.first?.contains("text.withCString { body(coffer_variant_type($0)) }") == true, "\(calls)")
    }
}
