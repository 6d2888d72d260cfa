@testable import CofferDevBackend

/// What the tests read from replies beyond what the backend itself reads.
extension JSON {
    /// The elements, if this is an array.
    var arrayValue: [JSON]? { if case .array(let elements) = self { elements } else { nil } }

    /// The number as an `Int`, if it is a whole one.
    var intValue: Int? { numberValue.flatMap { Int(exactly: $0) } }
}
