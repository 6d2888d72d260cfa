import CGio

/// A GLib `GVariant`: the values D-Bus messages carry. Holds one strong reference.
///
/// Built and read by the provider's objects (on the main-loop thread, or on GDBus's worker
/// thread while that loop waits: ``MainLoopThread/withResidentIfIdle(_:)``); never shared
/// between threads. The
/// pointer is lent out only through ``withPointer(_:)``: Swift may end an object's life right
/// after its last use, and a pointer read from a temporary would then dangle.
final class Variant {
    private let pointer: OpaquePointer

    /// Takes `pointer`, sinking a floating reference (new values) or taking over a full one.
    init(taking pointer: OpaquePointer) {
        self.pointer = g_variant_take_ref(pointer)
    }

    /// Adds a reference to a value someone else owns (a call's parameters).
    init(borrowing pointer: OpaquePointer) {
        self.pointer = g_variant_ref(pointer)
    }

    deinit { g_variant_unref(pointer) }

    /// Calls `body` with the value's pointer, keeping the value alive meanwhile.
    func withPointer<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(pointer) }
    }

    // MARK: Building

    static func string(_ text: String) -> Variant { Variant(taking: g_variant_new_string(text)) }
    static func boolean(_ value: Bool) -> Variant { Variant(taking: g_variant_new_boolean(value ? 1 : 0)) }
    static func uint64(_ value: UInt64) -> Variant { Variant(taking: g_variant_new_uint64(guint64(value))) }

    /// An object path; `path` must be valid (every path the provider makes is).
    static func objectPath(_ path: String) -> Variant { Variant(taking: g_variant_new_object_path(path)) }

    static func bytes(_ bytes: [UInt8]) -> Variant {
        withVariantType("y") { type in
            bytes.withUnsafeBytes { buffer in
                Variant(taking: g_variant_new_fixed_array(type, buffer.baseAddress, gsize(buffer.count), 1))
            }
        }
    }

    /// A value wrapped in `v`.
    static func boxed(_ value: Variant) -> Variant { Variant(taking: g_variant_new_variant(value.pointer)) }

    static func tuple(_ children: [Variant]) -> Variant {
        var pointers: [OpaquePointer?] = children.map(\.pointer)
        return Variant(taking: g_variant_new_tuple(&pointers, gsize(pointers.count)))
    }

    /// An array of `elementType` (needed for an empty array).
    static func array(of elementType: String, _ children: [Variant]) -> Variant {
        var pointers: [OpaquePointer?] = children.map(\.pointer)
        return withVariantType(elementType) { type in Variant(taking: g_variant_new_array(type, &pointers, gsize(pointers.count))) }
    }

    static func objectPaths(_ paths: [String]) -> Variant { array(of: "o", paths.map(objectPath)) }

    /// `a{ss}`, sorted by name so the same map always gives the same bytes.
    static func stringMap(_ map: [String: String]) -> Variant {
        array(of: "{ss}", map.sorted { $0.key < $1.key }.map { dictionaryEntry(string($0.key), string($0.value)) })
    }

    static func dictionaryEntry(_ key: Variant, _ value: Variant) -> Variant {
        Variant(taking: g_variant_new_dict_entry(key.pointer, value.pointer))
    }

    // MARK: Reading

    /// The type string, for example `(oayays)`.
    var typeString: String { String(cString: g_variant_get_type_string(pointer)) }

    func isOfType(_ type: String) -> Bool { Self.withVariantType(type) { g_variant_is_of_type(pointer, $0) != 0 } }

    /// Calls `body` with `text` as a `GVariantType`. `G_VARIANT_TYPE` is a cast, not a copy, so
    /// the C string must live as long as GLib reads the type: the whole call, never only the cast.
    private static func withVariantType<R>(_ text: String, _ body: (OpaquePointer?) -> R) -> R {
        text.withCString { body(coffer_variant_type($0)) }
    }

    var count: Int { Int(g_variant_n_children(pointer)) }

    /// The size of the value serialized, in bytes (GDBus has it serialized as it came).
    var serializedSize: Int { Int(g_variant_get_size(pointer)) }

    func child(_ index: Int) -> Variant { Variant(taking: g_variant_get_child_value(pointer, gsize(index))) }

    var children: [Variant] { (0..<count).map(child) }

    /// The text of an `s`, `o` or `g` value.
    var string: String { String(cString: g_variant_get_string(pointer, nil)) }
    var boolean: Bool { g_variant_get_boolean(pointer) != 0 }
    var uint32: UInt32 { g_variant_get_uint32(pointer) }
    /// The value inside a `v`.
    var unboxed: Variant { Variant(taking: g_variant_get_variant(pointer)) }

    /// Calls `body` with the bytes of an `ay` value, in place (no copy).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var length: gsize = 0
        let base = g_variant_get_fixed_array(pointer, &length, 1)
        return try body(UnsafeRawBufferPointer(start: base, count: Int(length)))
    }

    var byteArray: [UInt8] { withBytes { Array($0) } }

    /// An `a{ss}` as a map; a repeated name keeps its last value.
    var stringMap: [String: String] {
        var map: [String: String] = [:]
        for entry in children { map[entry.child(0).string] = entry.child(1).string }
        return map
    }

    /// An `a{sv}` as a map of boxed values.
    var propertyMap: [String: Variant] {
        var map: [String: Variant] = [:]
        for entry in children { map[entry.child(0).string] = entry.child(1).unboxed }
        return map
    }

    /// An `ao` as its paths.
    var objectPathList: [String] { children.map(\.string) }
}
