/// A `scope` parameter (RFC 6749 §3.3): space-separated, each element once, in the order given.
enum ScopeList {
    static func parse(_ text: String) -> [String] {
        var seen: Set<String> = []
        return text.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }

    static func format(_ scope: [String]) -> String {
        scope.joined(separator: " ")
    }
}
