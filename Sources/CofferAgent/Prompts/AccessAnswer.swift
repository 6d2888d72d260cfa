/// What an access prompt came to: the prompter's word, or why the answer is no (docs/prompts.md).
package enum AccessAnswer: Sendable, Equatable {
    /// `once`: this read only.
    case once
    /// `always`: this read, and the caller adds the program to the item's access list.
    case always
    /// No: `deny`, or no usable answer. The reason goes to the audit log.
    case deny(AccessDenial)

    /// The word a prompter writes for this answer: `once`, `always` or `deny`.
    package var word: String {
        switch self {
        case .once: "once"
        case .always: "always"
        case .deny: "deny"
        }
    }

    /// The answer a prompter's standard output gives: exactly one of the three words, with or
    /// without a line break after it. Anything else, empty output included, is
    /// ``AccessDenial/badAnswer``.
    package init(output: some Collection<UInt8>) {
        var bytes = Array(output)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        switch String(decoding: bytes, as: UTF8.self) {
        case "once": self = .once
        case "always": self = .always
        case "deny": self = .deny(.refused)
        default: self = .deny(.badAnswer)
        }
    }
}
