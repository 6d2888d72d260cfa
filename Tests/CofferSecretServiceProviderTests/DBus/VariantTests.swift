import XCTest
@testable import CofferSecretServiceProvider

/// GVariant values built from type strings the provider computes at run time.
final class VariantTests: XCTestCase {
    /// An array's element type comes from a Swift string that is not a literal, and the array
    /// has that type, empty or not; so does `isOfType`. (A regression: the type string was
    /// bridged to a C string that lived only for the cast `G_VARIANT_TYPE` stands for, so GLib
    /// read it after it was gone. Under ThreadSanitizer `g_variant_new_array` then refused the
    /// children, and the provider crashed serving `LockedCollectionTests`.)
    func testArraysHaveTheTypeTheirElementTypeStringNames() {
        for _ in 0..<1000 {
            let entry = ["{", "s", "v", "}"].joined(), object = String(["o"]), map = ["{", "ss", "}"].joined()
            XCTAssertEqual(Variant.array(of: entry, [Variant.dictionaryEntry(.string("k"), .boxed(.boolean(true)))]).typeString, "a{sv}")
            XCTAssertEqual(Variant.array(of: object, [.objectPath("/a"), .objectPath("/b")]).typeString, "ao")
            XCTAssertEqual(Variant.array(of: map, []).typeString, "a{ss}")
            XCTAssertTrue(Variant.array(of: entry, []).isOfType(["a", entry].joined()))
            XCTAssertFalse(Variant.array(of: object, []).isOfType(["a", map].joined()))
        }
    }
}
