/// RFC 8628 §6.1 user codes: 8 letters from an alphabet without vowels or look-alikes, shown
/// as `BCDF-GHJK`, and read back ignoring case, spaces and dashes.
enum UserCode {
    private static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// A new random code, `XXXX-XXXX`.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet.randomElement(using: &generator)! }
        return String(letters[0..<4]) + "-" + String(letters[4...])
    }

    /// The code as stored: upper case, without separators; `nil` when it cannot be one.
    static func normalized(_ text: String) -> String? {
        let letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
