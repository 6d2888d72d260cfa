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
}
