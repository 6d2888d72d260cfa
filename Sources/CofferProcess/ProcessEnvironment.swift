import Glibc

/// This process's own environment, as `environ` holds it.
package enum ProcessEnvironment {
    /// Each `NAME=value` entry, where it lies in memory.
    package static func entries() -> [UnsafeMutablePointer<CChar>] {
        guard var entry = Optional(environ) else { return [] }
        var entries: [UnsafeMutablePointer<CChar>] = []
        while let text = entry.pointee {
            entries.append(text)
            entry += 1
        }
        return entries
    }

    /// The variables, by name (the first of a name that appears twice).
    package static func variables() -> [String: String] {
        var variables: [String: String] = [:]
        for entry in entries() {
            let text = String(cString: entry)
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { continue }
            let name = String(text[..<equals])
            if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
        }
        return variables
    }
}
