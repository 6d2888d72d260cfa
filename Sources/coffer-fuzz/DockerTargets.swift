import DockerCredentialHelper
import Foundation

extension FuzzTarget {
    /// The JSON docker sends `store` (`DockerCredentials(json:)`), against Foundation's
    /// `JSONSerialization` where that reads the whole input: `null` is no credentials, a value
    /// that is not an object or a field that is not a string is refused, and an object with at
    /// most one key for each field (in any case) that the helper reads gives the same fields.
    /// Other inputs must only not crash it. (Which member of a field counts, and what Go refuses,
    /// `DockerSecretServiceReferenceTests` checks against docker's own helper.)
    static let dockerStore = FuzzTarget(name: "docker-store") { bytes in
        let ours = Result { try DockerCredentials(json: bytes) }
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return }
        if value is NSNull {
            precondition((try? ours.get()) == DockerCredentials(serverURL: "", username: "", secret: ""), "null is not read as no credentials")
            return
        }
        guard let object = value as? [String: Any] else {
            precondition((try? ours.get()) == nil, "a JSON value that is not an object is read as credentials")
            return
        }
        var expected: [String] = []
        for name in ["ServerURL", "Username", "Secret"] {
            let members = object.filter { goFolded($0.key) == goFolded(name) }
            guard members.count <= 1 else { return }
            guard let member = members.first else {
                expected.append("")
                continue
            }
            // JSONSerialization keeps one member of a repeated key; Go reads each in turn, and a
            // null after a string leaves the string. Which one came before a null cannot be told.
            if member.value is NSNull { return }
            guard let text = member.value as? String else {
                precondition((try? ours.get()) == nil, "a field that is not a string is read")
                return
            }
            expected.append(text)
        }
        // A repeated key JSONSerialization kept once may still hold a member that is not a
        // string, which the helper refuses as Go does; what it reads, it must read alike.
        guard let read = try? ours.get() else { return }
        precondition([read.serverURL, read.username, read.secret] == expected, "the fields are read otherwise than by JSONSerialization")
    }

    /// Go's simple case folding as far as ASCII names need it: ASCII letters, U+017F (an s) and
    /// U+212A (a k).
    private static func goFolded(_ text: String) -> [UInt32] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x41...0x5A: scalar.value + 0x20
            case 0x17F: 0x73
            case 0x212A: 0x6B
            default: scalar.value
            }
        }
    }
}
