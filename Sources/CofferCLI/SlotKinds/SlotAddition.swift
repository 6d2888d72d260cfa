import ArgumentParser
import Coffer
import CofferCommandLine

/// One kind's options on `coffer slots add`: the option that asks for a slot of the kind, and
/// its settings. One type per kind the command line adds, in its kind's file;
/// ``Slots/AddSlot`` holds one group of each.
protocol SlotAddition: ParsableArguments {
    /// The option that asks for a slot of this kind, as the usage error names it.
    static var option: String { get }
    /// Whether the command line asks for a slot of this kind.
    var isRequested: Bool { get }
    /// The descriptors its options name.
    var descriptors: [Int32] { get }
    /// The Argon2id cost it asks for, if any.
    var cost: PassphraseCost? { get }
    /// The new slot's credential, read, asked for or made now.
    func credential(_ store: StoreOptions) throws -> VaultCredential
    /// Says on stderr what the new slot changed, given the slots before it.
    func reportAdded(before: [KeySlot])
}

extension SlotAddition {
    var descriptors: [Int32] { [] }
    var cost: PassphraseCost? { nil }
    func reportAdded(before: [KeySlot]) {}
}
