import CofferBase

/// The provider's object paths (specification, "Object Paths"), and what a path names.
package enum ObjectPaths {
    static let service = "/org/freedesktop/secrets"
    static let collections = service + "/collection"
    static let aliases = service + "/aliases"
    static let sessions = service + "/session"
    static let prompts = service + "/prompt"
    /// "No object": the path D-Bus APIs use for "none", such as "no prompt needed".
    static let none = "/"

    static func collection(_ name: String) -> String { collections + "/" + name }

    /// The path of the locked match numbered `number` in a collection (``LockedMatch``): under
    /// the collection, as its items are, but never an item's (those end in 64 hex digits).
    package static func lockedMatch(_ number: Int, in collection: String) -> String {
        Self.collection(collection) + "/" + lockedMatchPrefix + String(number)
    }

    private static let lockedMatchPrefix = "locked_"

    /// An item's path: its collection's, then its row key in hex. The row key names the item for
    /// as long as the vault key stays the same, so the path `CreateItem` returns is the one
    /// `SearchItems` lists, across agent restarts too.
    package static func item(_ rowKey: [UInt8], in collection: String) -> String {
        Self.collection(collection) + "/" + Hex.encode(rowKey)
    }

    /// What a path names, by its shape alone.
    package enum Target: Equatable {
        case service
        case collection(String)
        case alias(String)
        case item(collection: String, rowKey: [UInt8])
        /// What a search of a locked collection lists in its stead (``LockedMatch``).
        case lockedMatch(collection: String, number: Int)
        case session(String)
        case prompt(String)
        /// A path with no object of the Secret Service: a container node or anything else.
        case other
    }

    package static func target(of path: String) -> Target {
        if path == service { return .service }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "org", "freedesktop", "secrets", kind, name[, item]
        guard parts.count >= 6, parts.count <= 7, parts[0...3] == ["", "org", "freedesktop", "secrets"],
              isElement(parts[5]) else { return .other }
        switch (parts[4], parts.count) {
        case ("collection", 6): return .collection(parts[5])
        case ("collection", 7):
            if parts[6].hasPrefix(lockedMatchPrefix) {
                let digits = parts[6].dropFirst(lockedMatchPrefix.count)
                guard let number = Int(digits), number > 0, String(number) == digits else { return .other }
                return .lockedMatch(collection: parts[5], number: number)
            }
            guard let rowKey = Hex.decode(parts[6]), rowKey.count == 32 else { return .other }
            return .item(collection: parts[5], rowKey: rowKey)
        case ("aliases", 6): return .alias(parts[5])
        case ("session", 6): return .session(path)
        case ("prompt", 6): return .prompt(path)
        default: return .other
        }
    }

    /// Whether `text` can be one element of an object path: `[A-Za-z0-9_]+`.
    package static func isElement(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isAlphanumeric($0) }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// The last elements of the provider's own container paths, which no collection takes, so
    /// that a collection's path is never mistaken for a container's (``ObjectExport``).
    static let reservedElements: Set<String> = ["secrets", "collection", "aliases", "session", "prompt"]

    /// A path element made from a label: lowercase letters, digits and `_`, at most 32
    /// characters, never one of ``reservedElements``.
    package static func element(fromLabel label: String) -> String {
        let mapped = label.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && isAlphanumeric(UInt8(scalar.value)) ? Character(scalar) : "_"
        }
        let element = String(String(mapped).prefix(32))
        if element.allSatisfy({ $0 == "_" }) { return "unnamed" }
        return reservedElements.contains(element) ? element + "_1" : element
    }
}

