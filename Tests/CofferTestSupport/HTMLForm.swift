import Foundation

/// An HTML form as a page has it: enough HTML for tests to log in and answer consent pages,
/// not a browser's parser. It reads `<form>`, and inside it `<input>`, `<button>` and
/// `<textarea>`, with quoted, unquoted and bare attributes and character references.
public struct HTMLForm: Sendable, Hashable {
    /// One control.
    public struct Control: Sendable, Hashable {
        /// `type`, lowercased: `text` when absent for an input, `submit` for a button.
        public var type: String
        public var name: String?
        public var value: String
        /// A checkbox or radio button's `checked`.
        public var checked: Bool
        /// A button's text, for telling "Allow" from "Deny".
        public var label: String

        /// Whether it submits the form.
        public var isSubmit: Bool { type == "submit" || type == "image" }
    }

    /// `action` as written (character references decoded); `nil` when absent.
    public var action: String?
    /// `method`, uppercased; `GET` when absent.
    public var method: String
    /// `id`, when it has one.
    public var id: String?
    public var controls: [Control]

    /// Whether it asks for a password: a login form.
    public var asksForPassword: Bool { controls.contains { $0.type == "password" } }

    /// The value the form would send for `name` without any change, if any.
    public func value(of name: String) -> String? {
        controls.first { $0.name == name && !$0.isSubmit }?.value
    }

    /// Every form in `html`, in document order.
    public static func all(in html: String) -> [HTMLForm] {
        var forms: [HTMLForm] = []
        var scanner = TagScanner(html)
        var current: HTMLForm?
        while let tag = scanner.nextTag() {
            switch tag.name {
            case "form":
                current = HTMLForm(
                    action: tag.attributes["action"], method: (tag.attributes["method"] ?? "get").uppercased(),
                    id: tag.attributes["id"], controls: [])
            case "/form":
                if let form = current { forms.append(form) }
                current = nil
            case "input":
                current?.controls.append(Control(
                    type: (tag.attributes["type"] ?? "text").lowercased(), name: tag.attributes["name"],
                    value: tag.attributes["value"] ?? "", checked: tag.attributes["checked"] != nil,
                    label: tag.attributes["value"] ?? ""))
            case "button":
                let text = scanner.text(until: "</button")
                current?.controls.append(Control(
                    type: (tag.attributes["type"] ?? "submit").lowercased(), name: tag.attributes["name"],
                    value: tag.attributes["value"] ?? "", checked: false, label: Self.plainText(text)))
            case "textarea":
                let text = scanner.text(until: "</textarea")
                current?.controls.append(Control(
                    type: "textarea", name: tag.attributes["name"], value: Self.decode(text), checked: false, label: ""))
            default:
                break
            }
        }
        if let form = current { forms.append(form) }  // an unclosed form still counts
        return forms
    }

    /// The text of an HTML fragment: tags removed, references decoded, spaces collapsed.
    public static func plainText(_ html: String) -> String {
        var text = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true } else if character == ">" { inTag = false; text.append(" ") } else if !inTag { text.append(character) }
        }
        return decode(text).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Decodes character references: the five named ones and numeric ones.
    public static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            guard let semicolon = rest.firstIndex(of: ";"), rest.distance(from: rest.startIndex, to: semicolon) <= 10 else {
                result.append("&")
                rest = rest.dropFirst()
                continue
            }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
            var replacement: String?
            if let value = named[String(entity)] {
                replacement = value
            } else if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if entity.hasPrefix("#") {
                replacement = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
            if let replacement {
                result += replacement
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result.append("&")
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }
}

/// Walks the tags of an HTML document: names lowercased (`/form` for an end tag), attributes
/// with lowercased names and decoded values. Comments, scripts and styles are skipped.
private struct TagScanner {
    struct Tag {
        let name: String
        let attributes: [String: String]
    }

    private let characters: [Character]
    private var index = 0

    init(_ html: String) {
        characters = Array(html)
    }

    mutating func nextTag() -> Tag? {
        while index < characters.count {
            guard characters[index] == "<" else {
                index += 1
                continue
            }
            if starts(with: "<!--") {
                skip(past: "-->")
                continue
            }
            index += 1
            var name = ""
            while index < characters.count, !characters[index].isWhitespace, characters[index] != ">", !(characters[index] == "/" && !name.isEmpty) {
                name.append(characters[index])
                index += 1
            }
            name = name.lowercased()
            let attributes = readAttributes()
            if name == "script" || name == "style" {
                skip(past: "</\(name)")
                skip(past: ">")
            }
            guard !name.isEmpty, name.first!.isLetter || name.first == "/" else { continue }
            return Tag(name: name, attributes: attributes)
        }
        return nil
    }

    /// The raw text from here to `end` (case-insensitive), moving past it.
    mutating func text(until end: String) -> String {
        let start = index
        while index < characters.count, !starts(with: end) { index += 1 }
        return String(characters[start..<index])
    }

    private mutating func readAttributes() -> [String: String] {
        var attributes: [String: String] = [:]
        while index < characters.count {
            while index < characters.count, characters[index].isWhitespace || characters[index] == "/" { index += 1 }
            guard index < characters.count, characters[index] != ">" else { break }
            var name = ""
            while index < characters.count, !characters[index].isWhitespace, !"=>/".contains(characters[index]) {
                name.append(characters[index])
                index += 1
            }
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            var value = ""
            if index < characters.count, characters[index] == "=" {
                index += 1
                while index < characters.count, characters[index].isWhitespace { index += 1 }
                if index < characters.count, characters[index] == "\"" || characters[index] == "'" {
                    let quote = characters[index]
                    index += 1
                    while index < characters.count, characters[index] != quote {
                        value.append(characters[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < characters.count, !characters[index].isWhitespace, characters[index] != ">" {
                        value.append(characters[index])
                        index += 1
                    }
                }
            }
            let key = name.lowercased()
            if !key.isEmpty, attributes[key] == nil { attributes[key] = HTMLForm.decode(value) }
        }
        index += 1  // past ">"
        return attributes
    }

    private func starts(with text: String) -> Bool {
        let needle = Array(text.lowercased())
        guard index + needle.count <= characters.count else { return false }
        for offset in 0..<needle.count where characters[index + offset].lowercased() != String(needle[offset]) {
            return false
        }
        return true
    }

    private mutating func skip(past text: String) {
        while index < characters.count, !starts(with: text) { index += 1 }
        index = min(characters.count, index + text.count)
    }
}
