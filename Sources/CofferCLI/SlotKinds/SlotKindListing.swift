import Coffer

/// How `coffer slots` and `coffer doctor` show one kind of key slot beyond its id, kind and
/// creation time: one file per kind that has more to show, listed in ``SlotKindListings``.
protocol SlotKindListing: Sendable {
    /// What `slot` shows, or `nil` when it is not of this kind.
    static func details(of slot: KeySlot) -> SlotDetails?
}

/// The kinds of key slot with more to show than their id, kind and creation time.
enum SlotKindListings {
    static let all: [any SlotKindListing.Type] = [
        PassphraseSlotListing.self,
        SystemdCredsSlotListing.self,
    ]

    /// What `slot` shows, by the first listing of its kind.
    static func details(of slot: KeySlot) -> SlotDetails? {
        all.lazy.compactMap { $0.details(of: slot) }.first
    }
}

/// What one slot shows beyond its id, kind and creation time: one JSON member and the text
/// column of `coffer slots`.
struct SlotDetails {
    /// The JSON member's name.
    let member: String
    let value: any Encodable
    /// The text column, escaped for a terminal.
    let text: String
}
