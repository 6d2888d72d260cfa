import CofferAuth
import CofferDevBackend
import Foundation

/// The text parsers: form bodies, `WWW-Authenticate` values and the CLI's answers JSON.
extension FuzzTarget {
    /// A form body, as the client reads redirect queries and the dev backend reads requests.
    /// Whatever decodes must encode and decode back to the same bytes.
    static let form = FuzzTarget(name: "form") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? FormBody.parse(text)
        guard let pairs = FormEncoding.decode(text) else { return }
        func exactBytes(_ pairs: [(name: String, value: String)]?) -> [[UInt8]]? {
            pairs?.flatMap { [Array($0.name.utf8), Array($0.value.utf8)] }
        }
        let again = FormEncoding.decode(FormEncoding.encode(pairs.map { ($0.name, $0.value) }))
        precondition(exactBytes(again) == exactBytes(pairs), "form encoding does not round-trip")
    }

    /// `WWW-Authenticate` values, one a line, as the headers of a 401.
    static let wwwAuthenticate = FuzzTarget(name: "www-authenticate") { bytes in
        let values = bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let response = HTTPReply(status: 401, headers: values.map { (HeaderName.wwwAuthenticate, $0) }, body: Data())
        for challenge in BearerChallenge.all(in: response) {
            precondition(challenge.parameters.keys.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() }, "a parameter name is empty or not lower-cased")
        }
    }

    /// The CLI's `--answers-json-fd` script. Every answer must go out as printable ASCII JSON
    /// (Mobile Client Access sends answers in a header) that reads back as the same value.
    static let answersJSON = FuzzTarget(name: "answers-json") { bytes in
        guard let script = try? AnswerScript.parse(Data(bytes)) else { return }
        for answer in script.values.joined() {
            let wire = answer.compactJSON
            precondition(wire.allSatisfy { (0x20...0x7E).contains($0) }, "an answer's JSON is not printable ASCII")
            precondition(JSONValue(parsing: wire) == answer, "an answer's JSON does not read back as the same value")
        }
    }

    /// JSON text (`JSONValue(parsing:)`, behind every reply parser). The reader is stricter than
    /// Foundation's `JSONDecoder` (docs: `JSONParser`), never looser: whatever it accepts,
    /// Foundation accepts too, as the same value. Except where `JSONDecoder` refuses valid JSON:
    /// some numbers equal to zero with an exponent (`0E2`, `-0.0e2`; found by this target,
    /// `JSONParserTests.testAZeroWithAnExponentIsANumber`); then Foundation's other reader,
    /// `JSONSerialization`, must accept the text.
    static let json = FuzzTarget(name: "json") { bytes in
        guard let value = JSONValue(parsing: Data(bytes)) else { return }
        guard let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            let serialization = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
            precondition(serialization != nil, "a text read here is refused by both of Foundation's readers")
            return
        }
        precondition(foundation == value, "a text read here is read otherwise by Foundation")
    }
}
